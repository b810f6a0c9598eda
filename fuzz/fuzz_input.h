#pragma once
// What the fuzz targets share. A target is a libFuzzer entry point (LLVMFuzzerTestOneInput)
// over one reader; tg::Error is the normal outcome of a bad input, so a target catches it and
// nothing else: any other exception, a crash, a leak or undefined behaviour is a finding.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/error.h"

namespace tg::fuzz {

// The input as a file, for readers that take a path: one file per process (named by the
// process id, ending in `extension`), rewritten for each input, removed at exit. In /dev/shm
// where there is one, so that neither these writes nor a reader's fsync touch a disk.
inline const std::string& input_as_file(const uint8_t* data, size_t size, const char* extension) {
  static const std::string path = [&] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string p = std::string(dir) + "/tapegrad_fuzz_" + std::to_string(::getpid()) + extension;
    static std::string to_remove = p;
    std::atexit([] { ::unlink(to_remove.c_str()); });
    return p;
  }();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) std::abort();
  for (size_t done = 0; done < size;) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return path;
}

// Runs fn(), for which throwing tg::Error is a normal outcome.
template <class Fn>
void expect_only_tg_errors(Fn&& fn) {
  try {
    fn();
  } catch (const tg::Error&) {
  }
}

}  // namespace tg::fuzz
