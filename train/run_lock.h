#pragma once
// One process at a time in a run directory. Every command that writes into a run directory
// (train, a resumed train, report, import) holds its RunLock for as long as it runs, so that two
// runs never interleave their checkpoint and metrics.jsonl: the second is refused at once with
//   "train: run directory runs/a is in use by process 4242 (lock file runs/a/.tapegrad.lock)".
//
// The lock is flock(2) on <dir>/.tapegrad.lock, which the kernel releases when the process ends,
// however it ends: the file a killed run leaves behind blocks nothing. The pid written into it
// is for the message only. Under mpirun rank 0 alone takes it (the ranks write nothing else).
// flock conflicts between two opens of the file in one process too: a command that writes into
// several run directories takes their locks through RunLocks, which locks each directory once
// however it is named (`report a ./a --csv`).
#include <sys/types.h>

#include <filesystem>
#include <list>
#include <set>
#include <utility>

namespace tg::train {

inline constexpr const char* kRunLockFile = ".tapegrad.lock";

class RunLock {
 public:
  // Locks the directory `dir`, which must exist. Errors are tg::Error(op, ...): in use by
  // another process (naming its pid and the lock file), or a lock file that cannot be opened (a
  // symbolic link, which is not followed, or not a regular file; a missing directory).
  RunLock(const char* op, const std::filesystem::path& dir);
  ~RunLock();
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

// The locks of the run directories one command writes into, each directory locked once: two
// names of one directory (a, ./a, a symbolic link to it) are one directory, by device and inode.
class RunLocks {
 public:
  // Locks `dir` (which must exist) unless this set holds its lock already; errors as RunLock's.
  void lock(const char* op, const std::filesystem::path& dir);

 private:
  std::set<std::pair<dev_t, ino_t>> locked_;
  std::list<RunLock> locks_;
};

}  // namespace tg::train
