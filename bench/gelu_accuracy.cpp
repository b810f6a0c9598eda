// gelu_accuracy: how far the gelu kernel's float32 arithmetic is from the exact functions, over
// every finite float, in each numerics version (core/numerics.h):
//   erf: erf_vec (version 1) and erf_polynomial (version 2, ops/common/vec_math.h), in ulps
//        from std::erf in double rounded to float; the loops compiled as the kernel's are
//        (TG_VEC_CLONES: the AVX-512 or AVX2 clone where the CPU has it, with fused multiply-adds);
//   gelu'(x) = Phi(x) + x phi(x): the CPU kernel's backward itself (gelu_backward_cpu with
//        dout = 1), the largest absolute error against double.
//
//   tapegrad_gelu_accuracy        (a few minutes on 2 cores)
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/factories.h"
#include "ops/common/vec_math.h"
#include "ops/gelu/gelu.h"
#include "ops/gelu/gelu_math.h"

using namespace tg;

namespace {

constexpr int64_t kBlock = int64_t{1} << 20;  // floats per block

TG_VEC_CLONES void erf_vec_block(float* out, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = erf_vec(x[i]);
}

TG_VEC_CLONES void erf_polynomial_block(float* out, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = erf_polynomial(x[i]);
}

struct Worst {
  double error = 0;
  float at = 0;  // of the floats with the largest error, the one whose bits are lowest
};

// The largest `error(x, computed)` over every finite float x, `compute` filling a block of results;
// the same x on every run, whichever thread finds it first.
Worst worst_over_every_float(const std::function<void(float* out, const float* x, int64_t n)>& compute,
                             double (*error)(float x, float computed)) {
  std::vector<float> x(kBlock), out(kBlock);
  Worst worst;
  for (int64_t first = 0; first < (int64_t{1} << 32); first += kBlock) {
    for (int64_t i = 0; i < kBlock; ++i) x[i] = bit_cast<float>(static_cast<uint32_t>(first + i));
    compute(out.data(), x.data(), kBlock);
#pragma omp parallel
    {
      Worst mine;
#pragma omp for
      for (int64_t i = 0; i < kBlock; ++i) {
        if (!std::isfinite(x[i])) continue;
        const double e = error(x[i], out[i]);
        if (e > mine.error) mine = {e, x[i]};
      }
#pragma omp critical
      if (mine.error > worst.error ||
          (mine.error == worst.error && bit_cast<uint32_t>(mine.at) < bit_cast<uint32_t>(worst.at)))
        worst = mine;
    }
  }
  return worst;
}

double erf_ulps(float x, float computed) {
  return static_cast<double>(ulps_between(computed, static_cast<float>(std::erf(static_cast<double>(x)))));
}

double derivative_error(float x, float computed) {
  return std::abs(static_cast<double>(computed) - gelu_math::erf_backward<double>(1.0, x));
}

// gelu_backward_cpu's dx for dout = 1: gelu'(x) as the kernel of `numerics` computes it.
std::function<void(float*, const float*, int64_t)> kernel_derivative(int64_t numerics) {
  return [numerics](float* out, const float* x, int64_t n) {
    const Tensor inp = empty({n}, kF32), ones = full({n}, 1.0, kF32), dx = empty({n}, kF32);
    std::copy(x, x + n, inp.data<float>());
    gelu_backward_cpu(dx, ones, inp, GeluApprox::none, numerics);
    std::copy(dx.data<float>(), dx.data<float>() + n, out);
  };
}

}  // namespace

int main() {
  for (const auto& [name, block] : {std::pair{"erf_vec (numerics 1)", &erf_vec_block},
                                    std::pair{"erf_polynomial (numerics 2)", &erf_polynomial_block}}) {
    const Worst w = worst_over_every_float(block, erf_ulps);
    fmt::print("{:<32} at most {:.0f} ulps from erf (at x = {:.9g})\n", name, w.error, w.at);
  }
  for (int64_t numerics : {1, 2}) {
    const Worst w = worst_over_every_float(kernel_derivative(numerics), derivative_error);
    fmt::print("gelu' (numerics {}){:<14} at most {:.3g} from gelu' (at x = {:.9g})\n", numerics, "", w.error, w.at);
  }
  return 0;
}
