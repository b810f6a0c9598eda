#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/elementwise_cpu.h"
#include "ops/common/vec_math.h"
#include "ops/masked_fill/masked_fill.h"

namespace tg {

namespace {

// o[i] = m[i] ? fill : x[i] for i < n (= writes), in the widest clone this CPU runs.
template <class T>
[[gnu::always_inline]] inline void fill_where_body(T* o, const T* x, const uint8_t* m, int64_t n, T fill) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    const T v = x[i];  // loaded unconditionally: a select, not a branch
    o[i] = m[i] ? fill : v;
  }
}
TG_VEC_CLONES void fill_where(float* o, const float* x, const uint8_t* m, int64_t n, float fill) {
  fill_where_body(o, x, m, n, fill);
}
TG_VEC_CLONES void fill_where(double* o, const double* x, const uint8_t* m, int64_t n, double fill) {
  fill_where_body(o, x, m, n, fill);
}

}  // namespace

void masked_fill_forward_cpu(const Tensor& out, const Tensor& x, const Tensor& mask, double value) {
  // out, x (shape); mask (shape or broadcastable to it)
  dispatch_floating(out.dtype(), "masked_fill", [&](auto zero) {
    using T = decltype(zero);
    const T fill = static_cast<T>(value);
    T* o = out.data<T>();
    const T* in = x.data<T>();
    const bool* m = mask.data<bool>();
    const int64_t n = out.numel();
    if (n > 0 && x.is_contiguous() && repeats_along(mask, out.shape())) {  // e.g. scores (B,NH,T,T), mask (T,T)
      const uint8_t* mb = mask_bytes(m);
      const int64_t inner = mask.numel();
      if (inner == n)  // the mask has x's shape: one flat loop
        return for_chunks(n, kElementwiseChunk, kParallelGrain, [&](int64_t first, int64_t count) {
          fill_where(o + first, in + first, mb + first, count, fill);
        });
#pragma omp parallel for if (n > kParallelGrain)
      for (int64_t block = 0; block < n / inner; ++block)
        fill_where(o + block * inner, in + block * inner, mb, inner, fill);
      return;
    }
    const Shape mask_strides = broadcast_strides(mask.shape(), mask.strides(), out.shape());
    strided_for_each<3>(out.shape(), {&out.strides(), &x.strides(), &mask_strides},
                        [&](const auto& off) { o[off[0]] = m[off[2]] ? fill : in[off[1]]; });
  });
}

}  // namespace tg
