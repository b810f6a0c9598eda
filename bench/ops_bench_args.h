#pragma once
// The command line of the two memory-bound-op benchmarks (ops_bench.cpp for tapegrad,
// libtorch/ops_libtorch.cpp for libtorch), so both take the same flags. Header-only and free of
// tapegrad's headers (the libtorch benchmark includes it too).
#include <cstdio>
#include <cstdlib>
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

}  // namespace ops_bench
