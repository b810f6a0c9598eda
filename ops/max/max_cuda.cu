#include <algorithm>
#include <cmath>

#include "core/copy.h"
#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/max/max.h"

namespace tg {

namespace {

// Whether element j with value v beats the best so far (value best, position best_j; -1: none
// yet): NaN beats every number, a larger number beats a smaller one, and between equal values
// (or two NaNs) the lower position wins. Combining in any order this way gives what the CPU
// kernel's in-order scan gives: the first NaN, else the first maximum.
template <class T>
__device__ bool beats(T v, int64_t j, T best, int64_t best_j) {
  if (best_j < 0) return true;
  const bool v_nan = std::isnan(v), best_nan = std::isnan(best);
  if (v_nan != best_nan) return v_nan;
  if (!v_nan && v != best) return v > best;
  return j < best_j;
}

// One block per output element (grid-stride over the outputs): each thread finds the best of
// every blockDim.x-th element of the row, then the block halves its candidates in shared
// memory until one is left. The row is `row` walked from x's offset for that output.
// blockDim.x must be kThreads (a power of 2).
template <class T>
__global__ void max_kernel(T* out, int64_t* indices, const T* x, StridedDesc out_to_x, StridedDesc row,
                           int64_t n_out, int64_t n_row) {
  __shared__ T best[kThreads];
  __shared__ int64_t best_j[kThreads];
  const int t = threadIdx.x;
  for (int64_t o = blockIdx.x; o < n_out; o += gridDim.x) {
    const T* first = x + out_to_x.at(o);  // the row's first element
    T v_best = 0;
    int64_t j_best = -1;  // -1: this thread has seen no element (rows shorter than the block)
    for (int64_t j = t; j < n_row; j += blockDim.x) {
      const T v = first[row.at(j)];
      if (beats(v, j, v_best, j_best)) v_best = v, j_best = j;
    }
    best[t] = v_best, best_j[t] = j_best;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (t < half && best_j[t + half] >= 0 && beats(best[t + half], best_j[t + half], best[t], best_j[t]))
        best[t] = best[t + half], best_j[t] = best_j[t + half];
      __syncthreads();
    }
    if (t == 0) out[o] = best[0], indices[o] = best_j[0];
    __syncthreads();  // best and best_j are reused for the next output
  }
}

void launch_max(const Tensor& out, const Tensor& indices, const Tensor& x, const StridedDesc& out_to_x,
                const StridedDesc& row, int64_t n_row) {
  const int64_t n_out = out.numel();
  if (n_out == 0) return;
  const int blocks = static_cast<int>(std::min<int64_t>(n_out, 65535));
  dispatch_floating(x.dtype(), "max", [&](auto zero) {
    using T = decltype(zero);
    max_kernel<<<blocks, kThreads>>>(out.data<T>(), indices.data<int64_t>(), x.data<T>(), out_to_x, row, n_out,
                                     n_row);
  });
  TG_CUDA_CHECK_LAUNCH("max");
}

// dx[row start of i + indices[i] * step] = grad[i] for each element i of indices (= writes).
template <class T>
__global__ void max_scatter_kernel(T* dx, StridedDesc row_start, int64_t step, const int64_t* indices,
                                   StridedDesc indices_desc, const T* grad, StridedDesc grad_desc, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) dx[row_start.at(i) + indices[indices_desc.at(i)] * step] = grad[grad_desc.at(i)];
}

}  // namespace

void max_forward_cuda(const Tensor& out, const Tensor& indices, const Tensor& x, int64_t dim) {
  // x (d0..dn-1) any strides; out, indices (x.shape with dim as 1) contiguous; one row per output.
  // Walking out's shape with x's strides gives each row's first element (out has size 1 at dim).
  const int64_t n = x.dim() == 0 ? 1 : x.size(dim), step = x.dim() == 0 ? 0 : x.strides()[dim];
  launch_max(out, indices, x, StridedDesc(out.shape(), x.strides(), 0), StridedDesc({n}, {step}, 0), n);
}

void max_all_forward_cuda(const Tensor& out, const Tensor& index, const Tensor& x) {
  // x (...) any strides, numel > 0; out (), index (): one row, x in row-major order
  launch_max(out, index, x, StridedDesc(Shape{}, Shape{}, 0), StridedDesc(x), x.numel());
}

void max_backward_cuda(const Tensor& dx, const Tensor& indices, const Tensor& grad, int64_t dim) {
  // dx (d0..dn-1) contiguous; indices, grad (dx.shape with dim as 1); grad any strides
  fill_(dx, 0);  // dx = 0 ...
  const int64_t n = indices.numel();
  if (n == 0) return;
  const int64_t step = dx.dim() == 0 ? 0 : dx.strides()[dim];
  // ... except at each row's maximum: dx = grad. Walking indices' shape with dx's strides gives
  // each row's first element of dx (indices has size 1 at dim).
  const StridedDesc row_start(indices.shape(), dx.strides(), 0);
  dispatch_floating(dx.dtype(), "max", [&](auto zero) {
    using T = decltype(zero);
    max_scatter_kernel<<<blocks_for(n), kThreads>>>(dx.data<T>(), row_start, step, indices.data<int64_t>(),
                                                    StridedDesc(indices), grad.data<T>(), StridedDesc(grad), n);
  });
  TG_CUDA_CHECK_LAUNCH("max");
}

}  // namespace tg
