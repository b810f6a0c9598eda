#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/elementwise_cpu.h"
#include "ops/common/vec_math.h"
#include "ops/gelu/gelu.h"
#include "ops/gelu/gelu_math.h"

namespace tg {

namespace {

// float32, erf form, contiguous: gelu_math's formulas with exp_vec and the erf of the numerics
// version (core/numerics.h), in loops that vectorise (float64 and the strided case take them with
// libm, the reference).
struct VecMathV1 {
  static float erf(float x) { return erf_vec(x); }
  static float exp(float x) { return exp_vec(x); }
};
struct VecMathV2 {
  static float erf(float x) { return erf_polynomial(x); }
  static float exp(float x) { return exp_vec(x); }
};

template <class M> TG_VEC_CLONES void gelu_erf_forward_f32(float* out, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = gelu_math::erf_forward<float, M>(x[i]);
}

template <class M> TG_VEC_CLONES void gelu_erf_backward_f32(float* dx, const float* g, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dx[i] = gelu_math::erf_backward<float, M>(g[i], x[i]);
}

constexpr int64_t kGeluChunk = 4096;  // elements per call of the functions above

}  // namespace

// inp (...) -> out (...)
void gelu_forward_cpu(const Tensor& out, const Tensor& inp, GeluApprox approx, int64_t numerics) {
  if (approx == GeluApprox::none && inp.dtype() == kF32 && inp.is_contiguous()) {
    float* o = out.data<float>();
    const float* x = inp.data<float>();
    auto forward = numerics == 1 ? gelu_erf_forward_f32<VecMathV1> : gelu_erf_forward_f32<VecMathV2>;
    return for_chunks(out.numel(), kGeluChunk, kParallelGrain,
                      [&](int64_t first, int64_t count) { forward(o + first, x + first, count); });
  }
  if (approx == GeluApprox::tanh)
    unary_kernel_cpu(out, inp, "gelu", [](auto x) { return gelu_math::tanh_forward(x); });
  else
    unary_kernel_cpu(out, inp, "gelu", [](auto x) { return gelu_math::erf_forward(x); });
}

// dout (...), inp (...) -> dinp (...)
void gelu_backward_cpu(const Tensor& dinp, const Tensor& dout, const Tensor& inp, GeluApprox approx,
                       int64_t numerics) {
  if (approx == GeluApprox::none && inp.dtype() == kF32 && inp.is_contiguous() && dout.is_contiguous() &&
      dout.shape() == inp.shape()) {
    float* d = dinp.data<float>();
    const float *g = dout.data<float>(), *x = inp.data<float>();
    auto backward = numerics == 1 ? gelu_erf_backward_f32<VecMathV1> : gelu_erf_backward_f32<VecMathV2>;
    return for_chunks(dinp.numel(), kGeluChunk, kParallelGrain, [&](int64_t first, int64_t count) {
      backward(d + first, g + first, x + first, count);
    });
  }
  if (approx == GeluApprox::tanh)
    binary_kernel_cpu(dinp, dout, inp, "gelu", [](auto g, auto x) { return gelu_math::tanh_backward(g, x); });
  else
    binary_kernel_cpu(dinp, dout, inp, "gelu", [](auto g, auto x) { return gelu_math::erf_backward(g, x); });
}

}  // namespace tg
