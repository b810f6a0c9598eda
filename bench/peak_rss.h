#pragma once
// Resident memory of this process, for the memory benchmarks (Linux: /proc/self). Plain C++,
// no fmt: the libtorch benchmarks include it too.
#include <cstdio>
#include <cstring>

namespace tg::bench {

// A "VmRSS" (now) or "VmHWM" (peak since start or the last reset_peak_rss) line of
// /proc/self/status, in MiB; -1 where it cannot be read.
inline double status_mib(const char* field) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  double kib = -1;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, field, n) == 0 && line[n] == ':') {
      std::sscanf(line + n + 1, "%lf", &kib);
      break;
    }
  std::fclose(f);
  return kib < 0 ? -1 : kib / 1024;
}
inline double rss_mib() { return status_mib("VmRSS"); }
inline double peak_rss_mib() { return status_mib("VmHWM"); }

// Restarts the peak (VmHWM) at the current RSS (writes 5 to /proc/self/clear_refs, Linux >= 4.0);
// false where the kernel refuses, and the peak then counts from the start of the process.
inline bool reset_peak_rss() {
  std::FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool written = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && written;
}

}  // namespace tg::bench
