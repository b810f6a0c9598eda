#include "core/io/output_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

namespace {

namespace fs = std::filesystem;

constexpr mode_t kFileMode = 0666;  // less the umask, as open(O_CREAT) makes any file
constexpr int kFileCreateAttempts = 100;
constexpr size_t kMaxNameBytes = 255;  // NAME_MAX on Linux file systems
constexpr size_t kSuffixBytes = 15;    // ".tmp-" and 10 random characters

[[noreturn]] void fail_errno(const char* op, const fs::path& path, const char* step, int error) {
  throw Error(op, fmt::format("cannot write {}: {}{}{}", path.string(), step, *step != '\0' ? ": " : "",
                              std::strerror(error)));
}

fs::path directory_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// `path`, once checked to name a file: "out/" or "out/.." name a directory.
fs::path file_path(const char* op, fs::path path) {
  const fs::path name = path.filename();
  if (name.empty() || name == "." || name == "..")
    throw Error(op, fmt::format("cannot write {}: it names a directory, not a file", path.string()));
  return path;
}

}  // namespace

void write_fully(const char* op, const fs::path& path, int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(op, path, "", errno);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
}

std::string temporary_name(const fs::path& name) {
  static constexpr std::string_view kAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 generator{std::random_device{}()};
  std::string temp = name.filename().string().substr(0, kMaxNameBytes - kSuffixBytes) + ".tmp-";
  for (int i = 0; i < 10; ++i) temp += kAlphabet[generator() % kAlphabet.size()];
  return temp;
}

ParentDirectory::ParentDirectory(const char* op, const fs::path& path)
    : fd_(::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
  if (fd_ < 0) fail_errno(op, path, "cannot open its directory", errno);
}

ParentDirectory::~ParentDirectory() { ::close(fd_); }

void ParentDirectory::sync(const char* op, const fs::path& path) const {
  if (::fsync(fd_) != 0) fail_errno(op, path, "written and renamed, but syncing its directory failed", errno);
}

namespace {

// A new file under a fresh random name in `dir`, never an existing file or a link.
int create_temporary(const char* op, const fs::path& path, const ParentDirectory& dir, std::string& name) {
  for (int attempt = 0; attempt < kFileCreateAttempts; ++attempt) {
    name = temporary_name(path.filename());
    const int fd = ::openat(dir.fd(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, kFileMode);
    if (fd >= 0) return fd;
    if (errno != EEXIST) fail_errno(op, path, "cannot create a temporary file beside it", errno);
  }
  fail_errno(op, path, "cannot create a temporary file beside it", EEXIST);
}

}  // namespace

OutputFile::Buffer::Buffer(int fd) : fd_(fd) { setp(bytes_.data(), bytes_.data() + bytes_.size()); }

bool OutputFile::Buffer::drain() {
  const char* p = pbase();
  while (p < pptr() && error_ == 0) {
    const ssize_t n = ::write(fd_, p, static_cast<size_t>(pptr() - p));
    if (n < 0 && errno != EINTR) error_ = errno;
    if (n > 0) p += n;
  }
  setp(bytes_.data(), bytes_.data() + bytes_.size());
  return error_ == 0;
}

OutputFile::Buffer::int_type OutputFile::Buffer::overflow(int_type ch) {
  if (!drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(ch, traits_type::eof())) sputc(traits_type::to_char_type(ch));
  return traits_type::not_eof(ch);
}

OutputFile::OutputFile(const char* op, fs::path path)
    : op_(op),
      path_(file_path(op, std::move(path))),
      dir_(op, path_),
      fd_(create_temporary(op, path_, dir_, temp_name_)),
      buffer_(fd_),
      stream_(&buffer_) {}

OutputFile::~OutputFile() {
  if (committed_) return;
  ::close(fd_);
  ::unlinkat(dir_.fd(), temp_name_.c_str(), 0);
}

fs::path OutputFile::temporary_path() const { return directory_of(path_) / temp_name_; }

void OutputFile::fail(const char* step, int error) const { fail_errno(op_, path_, step, error); }

void OutputFile::flush_stream() {
  if (!buffer_.drain()) fail("", buffer_.error());
}

void OutputFile::write(std::string_view bytes) {
  flush_stream();
  write_fully(op_, path_, fd_, bytes);
}

void OutputFile::commit() {
  flush_stream();
  if (::fsync(fd_) != 0) fail("fsync failed", errno);
  if (::close(std::exchange(fd_, -1)) != 0) fail("closing the temporary file failed", errno);
  if (::renameat(dir_.fd(), temp_name_.c_str(), dir_.fd(), path_.filename().c_str()) != 0)
    fail("cannot rename the temporary file over it", errno);
  committed_ = true;
  dir_.sync(op_, path_);
}

void write_file_atomically(const char* op, const fs::path& path, std::string_view content) {
  OutputFile file(op, path);
  file.write(content);
  file.commit();
}

AppendFile::AppendFile(const char* op, fs::path path)
    : op_(op), path_(std::move(path)), fd_(::open(path_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC)) {
  if (fd_ < 0) fail_errno(op_, path_, errno == ELOOP ? "it is a symbolic link (not followed)" : "cannot open it to append", errno);
}

AppendFile::~AppendFile() { ::close(fd_); }

void AppendFile::append_line(std::string_view line) {
  std::string whole;
  whole.reserve(line.size() + 1);
  whole.append(line).push_back('\n');
  write_fully(op_, path_, fd_, whole);
}

}  // namespace tg
