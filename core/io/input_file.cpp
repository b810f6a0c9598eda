#include "core/io/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

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

InputFile::~InputFile() { ::close(fd_); }

void InputFile::fail(const std::string& what) const { throw Error(op_, fmt::format("{}: {}", path_.string(), what)); }

void InputFile::read_at(void* data, size_t nbytes, uint64_t offset) const {
  char* p = static_cast<char*>(data);
  while (nbytes > 0) {
    ssize_t n = ::pread(fd_, p, nbytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      fail(fmt::format("read failed: {}", std::strerror(err)));
    }
    if (n == 0) fail("file ended early (truncated while reading?)");
    p += n;
    offset += static_cast<uint64_t>(n);
    nbytes -= static_cast<size_t>(n);
  }
}

std::string InputFile::read_all() const {
  std::string bytes;
  try {
    bytes.resize(size_);
  } catch (const std::bad_alloc&) {
    fail(fmt::format("is {} bytes, more than there is memory to read it into", size_));
  } catch (const std::length_error&) {
    fail(fmt::format("is {} bytes, more than there is memory to read it into", size_));
  }
  read_at(bytes.data(), bytes.size(), 0);
  return bytes;
}

}  // namespace tg
