// fma_peak: the FMA throughput of one core, the "peak" the training-step benchmarks compare
// matrix-product FLOP/s with. Twelve independent chains of vector FMAs (enough to cover the
// latency of two FMA pipes) run for about a second; GFLOP/s = 2 * lanes * FMAs / time. It prints
// one line per instruction set the CPU has (AVX-512F, AVX2+FMA) and the 2-core peak as
// PEAK_GFLOPS=..., the variable bench/side_by_side.sh and tapegrad_train_step_bench read.
// Run it on an otherwise idle core.
#include <chrono>
#include <cstdio>

namespace {

constexpr long kIterations = 100'000'000;
constexpr int kChains = 12;

// GFLOP/s of kChains chains a_i = a_i * m + c on vectors of Bytes bytes (GCC vector extensions:
// each caller below compiles them for its instruction set); distinct starting values, so that
// no two chains are the same computation to the compiler.
template <class T, int Bytes>  // T = float (a dependent element type keeps the vector_size)
[[gnu::always_inline]] inline double chains() {
  typedef T V __attribute__((vector_size(Bytes)));
  constexpr int lanes = Bytes / sizeof(T);
  V a[kChains];
  for (int i = 0; i < kChains; ++i) a[i] = T(0.5f + 0.01f * i) - V{};  // x - 0: a broadcast
  const V m = T(0.999f) - V{}, c = T(0.001f) - V{};
  const auto t0 = std::chrono::steady_clock::now();
  for (long n = 0; n < kIterations; ++n)
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) a[i] = a[i] * m + c;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  T sink = 0;
  for (int i = 0; i < kChains; ++i) sink += a[i][0];
  volatile T keep = sink;  // the chains' results are used
  (void)keep;
  return 2.0 * lanes * kChains * kIterations / seconds / 1e9;
}

[[gnu::target("avx512f")]] double avx512_gflops() { return chains<float, 64>(); }
[[gnu::target("avx2,fma")]] double avx2_gflops() { return chains<float, 32>(); }

}  // namespace

int main() {
  double best = 0;
  if (__builtin_cpu_supports("avx512f")) {
    best = avx512_gflops();
    std::printf("AVX-512F: %.1f GFLOP/s per core\n", best);
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    const double avx2 = avx2_gflops();
    std::printf("AVX2+FMA: %.1f GFLOP/s per core\n", avx2);
    if (best == 0) best = avx2;
  }
  if (best == 0) {
    std::printf("no AVX2+FMA or AVX-512F on this CPU\n");
    return 1;
  }
  std::printf("PEAK_GFLOPS=%.0f  # 2 cores\n", 2 * best);
  return 0;
}
