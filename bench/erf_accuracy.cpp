// erf_accuracy: the largest error, in ulps, of the float32 erfs the gelu kernel runs (erf_vec,
// numerics version 1; erf_polynomial, version 2; ops/common/vec_math.h) over every finite float,
// against std::erf in double rounded to float. The loops are compiled as the kernel's are
// (TG_VEC_CLONES: the AVX-512 or AVX2 clone where the CPU has it, with fused multiply-adds).
//
//   tapegrad_erf_accuracy        (about a minute on 2 cores)
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "ops/common/vec_math.h"

using namespace tg;

namespace {

constexpr int64_t kBlock = int64_t{1} << 16;  // floats per call of the loops below

TG_VEC_CLONES void erf_vec_block(float* out, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = erf_vec(x[i]);
}

TG_VEC_CLONES void erf_polynomial_block(float* out, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = erf_polynomial(x[i]);
}

// Floats in order as integers: the distance in ulps between two finite floats of either sign.
int64_t float_order(float x) {
  const int32_t bits = bit_cast<int32_t>(x);
  return bits < 0 ? -static_cast<int64_t>(bits & 0x7fffffff) : bits;
}

struct Worst {
  int64_t ulps = 0;
  float at = 0;
};

Worst worst_over_every_float(void (*erf_block)(float*, const float*, int64_t)) {
  Worst worst;
#pragma omp parallel
  {
    std::vector<float> x(kBlock), out(kBlock);
    Worst mine;
#pragma omp for schedule(dynamic)
    for (int64_t first = 0; first < (int64_t{1} << 32); first += kBlock) {
      for (int64_t i = 0; i < kBlock; ++i) x[i] = bit_cast<float>(static_cast<uint32_t>(first + i));
      erf_block(out.data(), x.data(), kBlock);
      for (int64_t i = 0; i < kBlock; ++i) {
        if (!std::isfinite(x[i])) continue;
        const float exact = static_cast<float>(std::erf(static_cast<double>(x[i])));
        const int64_t ulps = std::llabs(float_order(out[i]) - float_order(exact));
        if (ulps > mine.ulps) mine = {ulps, x[i]};
      }
    }
#pragma omp critical
    if (mine.ulps > worst.ulps) worst = mine;
  }
  return worst;
}

}  // namespace

int main() {
  for (const auto& [name, block] : {std::pair{"erf_vec (numerics 1)", &erf_vec_block},
                                    std::pair{"erf_polynomial (numerics 2)", &erf_polynomial_block}}) {
    const Worst w = worst_over_every_float(block);
    fmt::print("{:<28} at most {} ulps (at x = {:.9g})\n", name, w.ulps, w.at);
  }
  return 0;
}
