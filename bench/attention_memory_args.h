#pragma once
// The command line and the result line shared by attention_memory_bench (tapegrad) and
// attention_memory_libtorch, so that bench/attention_memory.sh drives and reads both alike.
//   --variant fused|composed (tapegrad only)  --T 1024  --heads 4  --head-size 64  --reps 3
//   --threads N (default: as the environment says)
// Result, one line of key=value:
//   variant=fused T=1024 heads=4 head_size=64 threads=2 base_mib=80.1 peak_mib=96.3 delta_mib=16.2 ms=512.3
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace tg::bench {

struct AttentionMemoryArgs {
  std::string variant = "fused";
  long T = 1024, heads = 4, head_size = 64, reps = 3, threads = 0;  // threads 0: leave as is
};

inline AttentionMemoryArgs parse_attention_memory_args(int argc, char** argv) {
  AttentionMemoryArgs a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) throw std::runtime_error("missing value after " + flag);
    const char* value = argv[++i];
    if (flag == "--variant") a.variant = value;
    else if (flag == "--T") a.T = std::atol(value);
    else if (flag == "--heads") a.heads = std::atol(value);
    else if (flag == "--head-size") a.head_size = std::atol(value);
    else if (flag == "--reps") a.reps = std::atol(value);
    else if (flag == "--threads") a.threads = std::atol(value);
    else throw std::runtime_error("unknown flag " + flag);
  }
  if (a.T <= 0 || a.heads <= 0 || a.head_size <= 0 || a.reps <= 0)
    throw std::runtime_error("--T, --heads, --head-size and --reps must be positive");
  return a;
}

inline void print_attention_memory_result(const AttentionMemoryArgs& a, int threads, double base_mib,
                                          double peak_mib, double ms) {
  std::printf("variant=%s T=%ld heads=%ld head_size=%ld threads=%d base_mib=%.1f peak_mib=%.1f delta_mib=%.1f ms=%.1f\n",
              a.variant.c_str(), a.T, a.heads, a.head_size, threads, base_mib, peak_mib, peak_mib - base_mib, ms);
}

}  // namespace tg::bench
