// sum_rows (ops/common/vec_math.h) gives the same sums whatever the vector width: the same calls
// compiled for AVX2 + FMA and for AVX-512 agree bit for bit, where `#pragma omp simd reduction`
// (the loop sum_rows replaces) would take 8 lanes on one and 16 on the other. Four rows at once
// (whose lanes are added as four-lane vectors) give each row's sum in the lanes' order, written
// out below; max_vec gives the row's largest value.
#include <algorithm>
#include <bit>
#include <cmath>
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

namespace {

// sum_rows' order written out in scalar code: lane l takes the j < n / 16 * 16 with j % 16 == l in
// order, the rest goes to lane 0 in order, then the lanes are added in order to +0.
float lanes_in_order(const float* x, int64_t n) {
  float lanes[16] = {};
  const int64_t whole = n / 16 * 16;
  for (int64_t j = 0; j < whole; ++j) lanes[j % 16] += x[j];
  for (int64_t j = whole; j < n; ++j) lanes[0] += x[j];
  float sum = 0;
  for (const float lane : lanes) sum += lane;
  return sum;
}

// The same bits, or both NaN (which NaN an addition of two passes on is the compiler's choice).
bool same_sum(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) || (std::isnan(a) && std::isnan(b));
}

}  // namespace

TEST_CASE("sum_rows: four rows at once add each row's lanes in order, as one row alone does") {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal;
  const float specials[] = {-0.0f, INFINITY, -INFINITY, NAN, 1e30f, -1e30f};
  for (int64_t n : {1, 15, 16, 17, 64, 100, 128}) {
    for (int special = -1; special < 6; ++special) {
      CAPTURE(n);
      CAPTURE(special);
      // 4 rows; with a special value, row 1 holds it at one place and row 2 is all of it
      std::vector<float> x(4 * n);
      for (float& v : x) v = normal(rng) * 1e3f;
      if (special >= 0) {
        x[n + n / 2] = specials[special];
        std::fill(x.begin() + 2 * n, x.begin() + 3 * n, specials[special]);
      }
      float four[1][4], one[1][1];
      sum_rows<4>(n, four, [&](int r, int64_t j) { return x[r * n + j]; });
      for (int r = 0; r < 4; ++r) {
        sum_rows<1>(n, one, [&](int, int64_t j) { return x[r * n + j]; });
        const float expected = lanes_in_order(x.data() + r * n, n);
        CHECK(same_sum(four[0][r], expected));
        CHECK(same_sum(one[0][0], expected));
      }
    }
  }
}

TEST_CASE("max_vec: the largest of the start and the row, NaN skipped, in lanes or the remainder") {
  std::mt19937 rng(12);
  std::normal_distribution<float> normal;
  for (int64_t n : {0, 1, 15, 16, 17, 64, 100}) {
    for (int place = 0; place < 3; ++place) {
      CAPTURE(n);
      CAPTURE(place);
      std::vector<float> x(n);
      for (float& v : x) v = normal(rng);
      if (n > 0) x[(n - 1) * place / 2] = 50.0f;  // first, middle or last: a lane or the remainder
      if (n > 1) x[n / 3] = NAN;
      float expected = -INFINITY;
      for (const float v : x)
        if (v > expected) expected = v;
      CHECK(max_vec(x.data(), n, -INFINITY) == expected);
      CHECK(max_vec(x.data(), n, 100.0f) == 100.0f);
      std::vector<double> wide(x.begin(), x.end());
      CHECK(max_vec(wide.data(), n, -static_cast<double>(INFINITY)) == static_cast<double>(expected));
    }
  }
  const std::vector<float> masked(40, -INFINITY);
  CHECK(max_vec(masked.data(), 40, -INFINITY) == -INFINITY);
  const std::vector<float> nans(40, NAN);
  CHECK(max_vec(nans.data(), 40, -INFINITY) == -INFINITY);
}
