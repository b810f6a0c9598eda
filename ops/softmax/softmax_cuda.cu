// The GPU twins of softmax_cpu.cpp: one block of kThreads threads per row, the row's
// elements strided over the threads, max and sum combined with block_max / block_sum (double).
#include <cmath>

#include "ops/common/block_reduce_cuda.cuh"
#include "ops/common/dim_rows.h"
#include "ops/common/launch_per_row_cuda.cuh"
#include "ops/softmax/softmax.h"

namespace tg {

namespace {

// out = softmax(inp) along dim_size (= writes); inp, out (outer, dim_size, inner), rows = outer * inner.
template <class T>
__global__ void softmax_forward_kernel(T* out, const T* inp, int64_t rows, int64_t dim_size, int64_t inner) {
  TG_BLOCK_PER_ROW_LOOP(r, rows) {
    const int64_t start = row_start(r, dim_size, inner);
    const T* x = inp + start;
    T* y = out + start;
    double maxval = -INFINITY;  // a NaN sticks, so that it reaches every output of the row
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) maxval = max_keep_nan(maxval, x[j * inner]);
    maxval = block_max(maxval);
    if (maxval == -INFINITY) {  // fully masked row (the same for the whole block): zeros instead of 0/0
      for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) y[j * inner] = T(0);
      continue;
    }
    double sum = 0;
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) {
      const double e = exp(x[j * inner] - maxval);  // in (0, 1]: never overflows
      y[j * inner] = static_cast<T>(e);
      sum += e;
    }
    const double scale = 1 / block_sum(sum);  // sum >= 1: the max element contributes exp(0)
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) y[j * inner] = static_cast<T>(y[j * inner] * scale);
  }
}

// dinp = out * (dout - sum(dout * out)) (= writes); all (outer, dim_size, inner).
template <class T>
__global__ void softmax_backward_kernel(T* dinp, const T* out, const T* dout, int64_t rows, int64_t dim_size,
                                        int64_t inner) {
  TG_BLOCK_PER_ROW_LOOP(r, rows) {
    const int64_t start = row_start(r, dim_size, inner);
    double dot = 0;  // sum_k g_k y_k
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) {
      const int64_t k = start + j * inner;
      dot += static_cast<double>(dout[k]) * out[k];
    }
    dot = block_sum(dot);
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) {
      const int64_t k = start + j * inner;
      dinp[k] = static_cast<T>(out[k] * (dout[k] - dot));  // a fully masked row has y = 0: dx = 0
    }
  }
}

}  // namespace

void softmax_forward_cuda(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner) {
  launch_per_row("softmax", inp.dtype(), [](auto zero) { return softmax_forward_kernel<decltype(zero)>; }, outer,
                 dim_size, inner, out, inp);
}

void softmax_backward_cuda(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                           int64_t dim_size, int64_t inner) {
  launch_per_row("softmax", out.dtype(), [](auto zero) { return softmax_backward_kernel<decltype(zero)>; }, outer,
                 dim_size, inner, dinp, out, dout);
}

}  // namespace tg
