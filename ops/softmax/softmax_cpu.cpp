#include <algorithm>
#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/dim_rows.h"
#include "ops/common/vec_math.h"
#include "ops/softmax/softmax.h"

namespace tg {

namespace {

// The float32 rows of the last dim (inner == 1), the shape attention scores have: contiguous
// elements, float arithmetic and exp_vec, so that every loop vectorises; kRowGroup rows at once.

// A fully masked row (its max is -inf): zeros instead of 0/0, or NaN if a NaN hid behind the -inf
// (= writes); y, x (n)
void softmax_masked_row_f32(float* y, const float* x, int64_t n) {
  bool nan = false;
  for (int64_t j = 0; j < n; ++j) nan = nan || std::isnan(x[j]);
  for (int64_t j = 0; j < n; ++j) y[j] = nan ? NAN : 0.0f;
}

// y = softmax(x) along each of Rows rows (= writes); y, x (Rows, n)
template <int Rows>
[[gnu::always_inline]] inline void softmax_rows(float* y, const float* x, int64_t n) {
  float maxval[Rows], sum[1][Rows];
  for (int r = 0; r < Rows; ++r) maxval[r] = max_vec(x + r * n, n, -INFINITY);  // skips NaN: exp_vec passes it on
  sum_rows<Rows>(n, sum, [&](int r, int64_t j) {
    const float e = exp_vec(x[r * n + j] - maxval[r]);  // in [0, 1]: never overflows; a NaN stays NaN
    y[r * n + j] = e;
    return e;
  });
  for (int r = 0; r < Rows; ++r) {
    float* yr = y + r * n;
    if (maxval[r] == -INFINITY) {  // fully masked: the exps above were NaN
      softmax_masked_row_f32(yr, x + r * n, n);
      continue;
    }
    const float scale = 1 / sum[0][r];  // sum >= 1: the max element contributes exp(0)
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) yr[j] *= scale;
  }
}

TG_VEC_CLONES void softmax_rows_f32(float* y, const float* x, int64_t rows, int64_t n) {
  int64_t r = 0;
  for (; r + kRowGroup <= rows; r += kRowGroup) softmax_rows<kRowGroup>(y + r * n, x + r * n, n);
  for (; r < rows; ++r) softmax_rows<1>(y + r * n, x + r * n, n);
}

// dx = y * (g - sum_k g_k y_k) along each of Rows rows (= writes); dx, y, g (Rows, n)
template <int Rows>
[[gnu::always_inline]] inline void softmax_backward_rows(float* dx, const float* y, const float* g, int64_t n) {
  float dot[1][Rows];
  sum_rows<Rows>(n, dot, [&](int r, int64_t j) { return g[r * n + j] * y[r * n + j]; });
  for (int r = 0; r < Rows; ++r) {
    const int64_t o = r * n;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) dx[o + j] = y[o + j] * (g[o + j] - dot[0][r]);  // fully masked: y = 0, dx = 0
  }
}

TG_VEC_CLONES void softmax_backward_rows_f32(float* dx, const float* y, const float* g, int64_t rows, int64_t n) {
  int64_t r = 0;
  for (; r + kRowGroup <= rows; r += kRowGroup) softmax_backward_rows<kRowGroup>(dx + r * n, y + r * n, g + r * n, n);
  for (; r < rows; ++r) softmax_backward_rows<1>(dx + r * n, y + r * n, g + r * n, n);
}

}  // namespace

void softmax_forward_cpu(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner) {
  // inp, out (outer, dim_size, inner) contiguous
  const int64_t rows = outer * inner;
  if (inp.dtype() == kF32 && inner == 1) {
    const float* x = inp.data<float>();
    float* y = out.data<float>();
#pragma omp parallel for if (rows * dim_size > kParallelGrain)
    for (int64_t r = 0; r < rows; r += kRowGroup)
      softmax_rows_f32(y + r * dim_size, x + r * dim_size, std::min<int64_t>(kRowGroup, rows - r), dim_size);
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
    for (int64_t r = 0; r < rows; r += kRowGroup)
      softmax_backward_rows_f32(dx + r * dim_size, y + r * dim_size, g + r * dim_size,
                                std::min<int64_t>(kRowGroup, rows - r), dim_size);
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
