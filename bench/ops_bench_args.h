#pragma once
// The command line and the timing of the two memory-bound-op benchmarks (ops_bench.cpp for
// tapegrad, libtorch/ops_libtorch.cpp for libtorch), so both take the same flags and time alike.
// Header-only and free of tapegrad's headers (the libtorch benchmark includes it too).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

namespace ops_bench {

struct Args {
  std::vector<int> thread_counts;  // --threads N, repeatable; default 1 and 2
  std::string filter;              // --filter SUBSTRING of the op name
  bool cpu_time = false;           // --cpu-time: process CPU time / threads instead of wall time
};

inline Args parse_args(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--threads" && i + 1 < argc)
      args.thread_counts.push_back(std::stoi(argv[++i]));
    else if (arg == "--filter" && i + 1 < argc)
      args.filter = argv[++i];
    else if (arg == "--cpu-time")
      args.cpu_time = true;
    else {
      std::fprintf(stderr, "usage: %s [--threads N]... [--filter SUBSTRING] [--cpu-time]\n", argv[0]);
      std::exit(2);
    }
  }
  if (args.thread_counts.empty()) args.thread_counts = {1, 2};
  return args;
}

// Microseconds on the wall clock, or (cpu_time, --cpu-time) of the process's CPU time divided
// by `threads`, the thread count the ops run on: the time the threads would take on cores of
// their own, which a machine shared with other work disturbs much less (use it with
// OMP_WAIT_POLICY=passive, so that waiting threads do not spin).
struct Timer {
  bool cpu_time = false;
  int threads = 1;

  double now_us() const {
    timespec ts{};
    clock_gettime(cpu_time ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    const double us = static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
    return cpu_time ? us / threads : us;
  }

  // Median over 11 samples of the mean time of one call, in microseconds; each sample repeats
  // the call for at least 3 ms.
  double median_us(const std::function<void()>& fn) const {
    for (int i = 0; i < 3; ++i) fn();  // warm up: the caching allocator, the caches, the threads
    int reps = 0;
    const double start = now_us();
    do {
      fn();
      ++reps;
    } while (now_us() - start < 3000);
    std::vector<double> samples;
    for (int s = 0; s < 11; ++s) {
      const double t0 = now_us();
      for (int r = 0; r < reps; ++r) fn();
      samples.push_back((now_us() - t0) / reps);
    }
    std::nth_element(samples.begin(), samples.begin() + 5, samples.end());
    return samples[5];
  }
};

}  // namespace ops_bench
