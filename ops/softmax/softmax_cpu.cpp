#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/dim_rows.h"
#include "ops/common/vec_math.h"
#include "ops/softmax/softmax.h"

namespace tg {

namespace {

// The float32 rows of the last dim (inner == 1), the shape attention scores have: contiguous
// elements, float arithmetic and exp_vec, so that every loop vectorises.
// y = softmax(x) (= writes), x, y (n)
TG_VEC_CLONES void softmax_row_f32(float* y, const float* x, int64_t n) {
  const float maxval = max_vec(x, n, -INFINITY);  // skips NaN: exp_vec passes it on
  if (maxval == -INFINITY) {  // fully masked row: zeros instead of 0/0 (NaN if a NaN hid behind the -inf)
    bool nan = false;
    for (int64_t j = 0; j < n; ++j) nan = nan || std::isnan(x[j]);
    for (int64_t j = 0; j < n; ++j) y[j] = nan ? NAN : 0.0f;
    return;
  }
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t j = 0; j < n; ++j) {
    const float e = exp_vec(x[j] - maxval);  // in [0, 1]: never overflows; a NaN stays NaN
    y[j] = e;
    sum += e;
  }
  const float scale = 1 / sum;  // sum >= 1: the max element contributes exp(0)
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) y[j] *= scale;
}

// dx = y * (g - sum_k g_k y_k) (= writes); dx, y, g (n)
TG_VEC_CLONES void softmax_backward_row_f32(float* dx, const float* y, const float* g, int64_t n) {
  float dot = 0;
#pragma omp simd reduction(+ : dot)
  for (int64_t j = 0; j < n; ++j) dot += g[j] * y[j];
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) dx[j] = y[j] * (g[j] - dot);  // a fully masked row has y = 0: dx = 0
}

}  // namespace

void softmax_forward_cpu(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner) {
  // inp, out (outer, dim_size, inner) contiguous
  const int64_t rows = outer * inner;
  if (inp.dtype() == kF32 && inner == 1) {
    const float* x = inp.data<float>();
    float* y = out.data<float>();
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) softmax_row_f32(y + r * dim_size, x + r * dim_size, dim_size);
    return;
  }
  dispatch_floating(inp.dtype(), "softmax", [&](auto zero) {
    using T = decltype(zero);
    const T* x = inp.data<T>();
    T* y = out.data<T>();
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = row_start(r, dim_size, inner);
      const T* xr = x + start;
      T* yr = y + start;
      const double maxval = row_max(xr, dim_size, inner);
      if (maxval == -INFINITY) {  // fully masked row: zeros instead of 0/0
        for (int64_t j = 0; j < dim_size; ++j) yr[j * inner] = 0;
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < dim_size; ++j) {
        const double e = std::exp(xr[j * inner] - maxval);  // in (0, 1]: never overflows
        yr[j * inner] = static_cast<T>(e);
        sum += e;
      }
      const double scale = 1 / sum;  // sum >= 1: the max element contributes exp(0)
      for (int64_t j = 0; j < dim_size; ++j) yr[j * inner] = static_cast<T>(yr[j * inner] * scale);
    }
  });
}

void softmax_backward_cpu(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                          int64_t dim_size, int64_t inner) {
  // dinp, out, dout (outer, dim_size, inner) contiguous
  const int64_t rows = outer * inner;
  if (out.dtype() == kF32 && inner == 1) {
    const float* y = out.data<float>();
    const float* g = dout.data<float>();
    float* dx = dinp.data<float>();
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r)
      softmax_backward_row_f32(dx + r * dim_size, y + r * dim_size, g + r * dim_size, dim_size);
    return;
  }
  dispatch_floating(out.dtype(), "softmax", [&](auto zero) {
    using T = decltype(zero);
    const T* y = out.data<T>();
    const T* g = dout.data<T>();
    T* dx = dinp.data<T>();
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t start = row_start(r, dim_size, inner);
      double dot = 0;  // sum_k g_k y_k
      for (int64_t j = 0; j < dim_size; ++j) dot += static_cast<double>(g[start + j * inner]) * y[start + j * inner];
      for (int64_t j = 0; j < dim_size; ++j) {
        const int64_t k = start + j * inner;
        dx[k] = static_cast<T>(y[k] * (g[k] - dot));  // a fully masked row has y = 0: dx = 0
      }
    }
  });
}

}  // namespace tg
