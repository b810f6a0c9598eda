#pragma once
// What the GEMM tests share (gemm_cpu_test.cpp, gemm_tuning_test.cpp).
#include <doctest/doctest.h>
#include <omp.h>

#include <string>
#include <vector>

#include "ops/matmul/gemm_cpu.h"

namespace tg::test {

// The best micro-kernel family and the thread count back as they were at the end of a scope, even
// when a check throws.
struct RestoreKernelAndThreads {
  int threads = omp_get_max_threads();
  ~RestoreKernelAndThreads() {
    gemm_cpu_force_kernel("");
    omp_set_num_threads(threads);
  }
};

// Runs body once per family of micro-kernels this CPU can run (gemm_cpu_kernels(): the best first,
// the portable one last) and thread count, restoring both settings afterwards.
template <class Fn>
void for_kernels_and_threads(const std::vector<int>& thread_counts, Fn&& body) {
  const RestoreKernelAndThreads restore;
  for (const std::string& kernel : gemm_cpu_kernels())
    for (int threads : thread_counts) {
      gemm_cpu_force_kernel(kernel);
      omp_set_num_threads(threads);
      CAPTURE(gemm_cpu_kernel_name());
      CAPTURE(threads);
      body();
    }
}

}  // namespace tg::test
