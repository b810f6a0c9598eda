#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/elementwise_cpu.h"
#include "ops/common/vec_math.h"
#include "ops/gelu/gelu.h"
#include "ops/gelu/gelu_math.h"

namespace tg {

namespace {

// float32, erf form, contiguous, in loops that vectorise (float64 and the strided case take
// gelu_math's formulas with libm, the reference). Numerics version 1 (core/numerics.h): those
// formulas with erf_vec and exp_vec. Version 2: the forward's with erf_polynomial, and the
// backward's gelu'(x) by polynomials of its own (gelu_derivative_polynomial).
struct VecMathV1 {
  static float erf(float x) { return erf_vec(x); }
  static float exp(float x) { return exp_vec(x); }
};
struct VecMathV2 {
  static float erf(float x) { return erf_polynomial(x); }
};

// gelu'(x) = Phi(x) + x phi(x) without an erf or an exp. gelu'(x) - 1/2 is odd: on a = |x|, for
// a < 1.5 it is a P(a^2), P of degree 7; for 1.5 <= a < 5.9, Q(s) with s = (2a - 7.4) / 4.4, Q of
// degree 15; from 5.9 on, 1/2 (gelu' is within 3e-8 of 1 or 0 there); with x's sign (odd_pieces,
// ops/common/vec_math.h). P and Q are minimax fits (scripts/fit_gelu_polynomials.py).
inline float gelu_derivative_polynomial(float x) {
  const float a = std::fabs(x), w = a * a;
  const float p = horner(w, -3.8160306e-07f, 8.407513e-06f, -0.000111683905f, 0.0011526629f, -0.009497684f,
                         0.05984108f, -0.2659615f, 0.7978846f);
  const float s = a * (2.0f / 4.4f) - (7.4f / 4.4f);
  const float q = horner(s, -0.0009178543f, -0.0010373252f, 0.0079311505f, -0.0010703946f, -0.023772867f,
                         0.027668662f, 0.010726052f, -0.05922525f, 0.07034989f, -0.024964433f, -0.04506651f,
                         0.08404065f, -0.07205999f, 0.03685883f, -0.010924433f, 0.5014639f);
  return 0.5f + odd_pieces(x, p * a, 1.5f, q, 5.9f, 0.5f);
}

template <class M> TG_VEC_CLONES void gelu_erf_forward_f32(float* out, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) out[i] = gelu_math::erf_forward<float, M>(x[i]);
}

TG_VEC_CLONES void gelu_erf_backward_f32_v1(float* dx, const float* g, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dx[i] = gelu_math::erf_backward<float, VecMathV1>(g[i], x[i]);
}

TG_VEC_CLONES void gelu_erf_backward_f32_v2(float* dx, const float* g, const float* x, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) dx[i] = g[i] * gelu_derivative_polynomial(x[i]);
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
    auto backward = numerics == 1 ? gelu_erf_backward_f32_v1 : gelu_erf_backward_f32_v2;
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
