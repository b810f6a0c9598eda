#include "core/io/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <new>
#include <utility>

#include "core/error.h"

namespace tg {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a plain file";
}

}  // namespace

InputFile::InputFile(const char* op, std::filesystem::path path) : op_(op), path_(std::move(path)) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. Checking the type
  // of what was opened (not of the path beforehand) leaves no window to swap the file.
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) {
    int err = errno;
    fail(fmt::format("cannot open: {}", std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    fail(fmt::format("cannot stat: {}", std::strerror(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fail(fmt::format("is {}, not a regular file", kind_of(st.st_mode)));
  }
  size_ = static_cast<uint64_t>(st.st_size);
}

InputFile::InputFile(InputFile&& other) noexcept
    : op_(other.op_), path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)), size_(other.size_) {}

InputFile::~InputFile() {
  if (fd_ >= 0) ::close(fd_);
}

void InputFile::fail(const std::string& what) const { throw Error(op_, fmt::format("{}: {}", path_.string(), what)); }

size_t InputFile::read_up_to(void* data, size_t nbytes, uint64_t offset) const {
  char* p = static_cast<char*>(data);
  size_t done = 0;
  while (done < nbytes) {
    ssize_t n = ::pread(fd_, p + done, nbytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      fail(fmt::format("read failed: {}", std::strerror(err)));
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

void InputFile::read_at(void* data, size_t nbytes, uint64_t offset) const {
  if (read_up_to(data, nbytes, offset) < nbytes) fail("file ended early (truncated while reading?)");
}

std::string InputFile::read_all() const {
  // One byte more than stat's size, so that reading the whole file ends short of the buffer's
  // end without growing it; a file that grew, or that stat calls empty (/proc), grows it.
  constexpr uint64_t kChunk = uint64_t{1} << 16;
  std::string bytes;
  size_t filled = 0;
  try {
    bytes.resize(std::max(size_ + 1, kChunk));
    while ((filled += read_up_to(bytes.data() + filled, bytes.size() - filled, filled)) == bytes.size())
      bytes.resize(bytes.size() + std::max<size_t>(kChunk, bytes.size() / 2));
  } catch (const std::bad_alloc&) {
    fail(fmt::format("is over {} bytes, more than there is memory to read it into", std::max<uint64_t>(size_, filled)));
  } catch (const std::length_error&) {
    fail(fmt::format("is over {} bytes, more than there is memory to read it into", std::max<uint64_t>(size_, filled)));
  }
  bytes.resize(filled);
  return bytes;
}

}  // namespace tg
