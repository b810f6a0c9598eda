#include <algorithm>

#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/common/reduce_shape.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

// One block per output element (grid-stride over the outputs). Each thread adds up every
// blockDim.x-th reduced element in double, as the CPU kernel does, then the block halves its
// partial sums in shared memory until one is left. blockDim.x must be kThreads (a power of 2).
template <class T>
__global__ void sum_kernel(T* out, const T* x, StridedDesc out_to_x, StridedDesc reduced, int64_t n_out,
                           int64_t n_reduced) {
  __shared__ double partial[kThreads];
  const int t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const T* first = x + out_to_x.at(o);  // x's first reduced element for output o
    double acc = 0;
    for (int64_t j = t; j < n_reduced; j += blockDim.x) acc += first[reduced.at(j)];
    partial[t] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (t < half) partial[t] += partial[t + half];
      __syncthreads();
    }
    if (t == 0) out[o] = static_cast<T>(partial[0]);
    __syncthreads();  // partial is reused for the next output
  }
}

}  // namespace

void sum_forward_cuda(const Tensor& out, const Tensor& x) {
  // x (d0..dn-1) any strides; out (keepdim shape) contiguous. Reduced dims: out 1, x not.
  const int64_t n_out = out.numel();
  if (n_out == 0) return;
  const ReducedDims r = reduced_dims(x, out.shape());
  // Walking out's shape with x's strides gives each output's first reduced element (out has
  // size 1 in the reduced dims, so those strides are never stepped along).
  const StridedDesc out_to_x(out.shape(), x.strides(), 0), reduced(r.shape, r.strides, 0);
  const int blocks = static_cast<int>(std::min<int64_t>(n_out, 65535));
  dispatch_floating(x.dtype(), "sum", [&](auto zero) {
    using T = decltype(zero);
    sum_kernel<<<blocks, kThreads>>>(out.data<T>(), x.data<T>(), out_to_x, reduced, n_out, numel(r.shape));
  });
  TG_CUDA_CHECK_LAUNCH("sum");
}

}  // namespace tg
