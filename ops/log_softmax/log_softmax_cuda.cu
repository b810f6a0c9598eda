// The GPU twins of log_softmax_cpu.cpp: one block of kThreads threads per row, the row's
// elements strided over the threads, max and sums combined with block_max / block_sum (double).
#include <cmath>

#include "ops/common/block_reduce_cuda.cuh"
#include "ops/common/dim_rows.h"
#include "ops/common/launch_per_row_cuda.cuh"
#include "ops/log_softmax/log_softmax.h"

namespace tg {

namespace {

// out = log_softmax(inp) along dim_size (= writes); inp, out (outer, dim_size, inner), rows = outer * inner.
template <class T>
__global__ void log_softmax_forward_kernel(T* out, const T* inp, int64_t rows, int64_t dim_size, int64_t inner) {
  TG_BLOCK_PER_ROW_LOOP(r, rows) {
    const int64_t start = row_start(r, dim_size, inner);
    const T* x = inp + start;
    T* y = out + start;
    double maxval = -INFINITY;  // a NaN sticks, so that it reaches every output of the row
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) maxval = max_keep_nan(maxval, x[j * inner]);
    maxval = block_max(maxval);
    if (maxval == -INFINITY) {  // fully masked row (the same for the whole block): -inf, not NaN
      for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) y[j * inner] = static_cast<T>(-INFINITY);
      continue;
    }
    double sum = 0;
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) sum += exp(x[j * inner] - maxval);
    const double log_sum = log(block_sum(sum));  // sum >= 1: the max element contributes exp(0)
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x)
      y[j * inner] = static_cast<T>((x[j * inner] - maxval) - log_sum);
  }
}

// dinp = dout - exp(out) * sum(dout) (= writes), 0 on rows where out is all -inf.
template <class T>
__global__ void log_softmax_backward_kernel(T* dinp, const T* out, const T* dout, int64_t rows, int64_t dim_size,
                                            int64_t inner) {
  TG_BLOCK_PER_ROW_LOOP(r, rows) {
    const int64_t start = row_start(r, dim_size, inner);
    double gsum = 0, live = 0;  // live: elements whose y is not -inf (none: the row was fully masked)
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) {
      const int64_t k = start + j * inner;
      gsum += dout[k];
      live += out[k] == -INFINITY ? 0 : 1;
    }
    gsum = block_sum(gsum);
    const bool masked = block_sum(live) == 0;
    for (int64_t j = threadIdx.x; j < dim_size; j += blockDim.x) {
      const int64_t k = start + j * inner;
      dinp[k] = masked ? T(0) : static_cast<T>(dout[k] - exp(static_cast<double>(out[k])) * gsum);
    }
  }
}

}  // namespace

void log_softmax_forward_cuda(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size,
                              int64_t inner) {
  launch_per_row("log_softmax", inp.dtype(), [](auto zero) { return log_softmax_forward_kernel<decltype(zero)>; },
                 outer, dim_size, inner, out, inp);
}

void log_softmax_backward_cuda(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                               int64_t dim_size, int64_t inner) {
  launch_per_row("log_softmax", out.dtype(), [](auto zero) { return log_softmax_backward_kernel<decltype(zero)>; },
                 outer, dim_size, inner, dinp, out, dout);
}

}  // namespace tg
