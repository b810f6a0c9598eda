// sum_rows (ops/common/vec_math.h) gives the same sums whatever the vector width: the same calls
// compiled for AVX2 + FMA and for AVX-512 agree bit for bit, where `#pragma omp simd reduction`
// (the loop sum_rows replaces) would take 8 lanes on one and 16 on the other.
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "ops/common/vec_math.h"
#include "test_util.h"

using namespace tg;

#if defined(__x86_64__)
namespace {

constexpr int kRows = 4;

// Two sums over four rows of n: sum_j g y (a product the compiler contracts) and sum_j exp(g).
#define TG_SUM_ROWS_BODY                                                                       \
  float sums[2][kRows];                                                                        \
  sum_rows<kRows>(                                                                             \
      n, sums, [&](int r, int64_t j) { return g[r * n + j] * y[r * n + j]; },                  \
      [&](int r, int64_t j) { return exp_vec(g[r * n + j]); });                                \
  for (int k = 0; k < 2; ++k)                                                                  \
    for (int r = 0; r < kRows; ++r) out[k * kRows + r] = sums[k][r];

[[gnu::target("arch=x86-64-v3")]] void sums_avx2(float* out, const float* g, const float* y, int64_t n) {
  TG_SUM_ROWS_BODY
}
[[gnu::target("arch=x86-64-v4")]] void sums_avx512(float* out, const float* g, const float* y, int64_t n) {
  TG_SUM_ROWS_BODY
}
#undef TG_SUM_ROWS_BODY

const bool cpu_runs_both = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") &&
                           __builtin_cpu_supports("fma");

}  // namespace

TEST_CASE("sum_rows: AVX2 and AVX-512 give the same sums, bit for bit" * doctest::skip(!cpu_runs_both)) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal;
  for (int64_t n : {1, 3, 8, 15, 16, 17, 31, 64, 100, 128, 300}) {
    CAPTURE(n);
    std::vector<float> g(kRows * n), y(kRows * n);
    for (float& v : g) v = normal(rng);
    for (float& v : y) v = normal(rng);
    float avx2[2 * kRows], avx512[2 * kRows];
    sums_avx2(avx2, g.data(), y.data(), n);
    sums_avx512(avx512, g.data(), y.data(), n);
    for (int i = 0; i < 2 * kRows; ++i) CHECK(std::bit_cast<uint32_t>(avx2[i]) == std::bit_cast<uint32_t>(avx512[i]));
  }
}
#endif
