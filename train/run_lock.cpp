#include "train/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::train {

namespace {

// The pid the holder wrote, or "" when there is none yet (it has just taken the lock).
std::string holder_pid(int fd) {
  std::array<char, 32> text{};
  const ssize_t n = ::pread(fd, text.data(), text.size() - 1, 0);
  std::string pid(text.data(), n > 0 ? static_cast<size_t>(n) : 0);
  pid.erase(pid.find_last_not_of("\n") + 1);
  return pid.find_first_not_of("0123456789") == std::string::npos ? pid : std::string();
}

}  // namespace

RunLock::RunLock(const char* op, const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / kRunLockFile;
  // O_NOFOLLOW: a symbolic link planted at the lock file's name leads nowhere; O_NONBLOCK: a FIFO
  // planted there does not block the open (fstat refuses it next).
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd_ < 0) {
    const int error = errno;
    throw Error(op, fmt::format("cannot open the lock file {}: {}", file.string(),
                                error == ELOOP ? "it is a symbolic link" : std::strerror(error)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    throw Error(op, fmt::format("the lock file {} is not a regular file", file.string()));
  }
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string pid = error == EWOULDBLOCK ? holder_pid(fd_) : std::string();
    ::close(fd_);
    if (error != EWOULDBLOCK)
      throw Error(op, fmt::format("cannot lock {}: {}", file.string(), std::strerror(error)));
    throw Error(op, fmt::format("run directory {} is in use by {} (lock file {})", dir.string(),
                                pid.empty() ? "another process" : "process " + pid, file.string()));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int error = errno;
    ::close(fd_);
    throw Error(op, fmt::format("cannot write the lock file {}: {}", file.string(), std::strerror(error)));
  }
}

// Closing the file releases the lock. The file stays: removing it would let a process that
// opened it just before lock a file no longer in the directory while a third locks a new one.
RunLock::~RunLock() { ::close(fd_); }

void RunLocks::lock(const char* op, const std::filesystem::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int error = errno;
    throw Error(op, fmt::format("cannot lock the run directory {}: {}", dir.string(), std::strerror(error)));
  }
  const std::pair<dev_t, ino_t> identity{st.st_dev, st.st_ino};
  if (locked_.contains(identity)) return;
  locks_.emplace_back(op, dir);
  locked_.insert(identity);
}

}  // namespace tg::train
