#pragma once
// The GPU twins of elementwise_cpu.h: one thread per output element, grid-stride loop.
// The element function is a __device__ lambda or functor templated on the element type.
#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"

namespace tg {

template <class T, class F>
__global__ void binary_kernel(T* out, const T* a, StridedDesc a_desc, const T* b, StridedDesc b_desc,
                              int64_t n, F f) {
  TG_GRID_STRIDE_LOOP(i, n) out[i] = f(a[a_desc.at(i)], b[b_desc.at(i)]);
}

template <class T, class F>
__global__ void unary_kernel(T* out, const T* x, StridedDesc x_desc, int64_t n, F f) {
  TG_GRID_STRIDE_LOOP(i, n) out[i] = f(x[x_desc.at(i)]);
}

// out = f(a, b); out contiguous of the broadcast shape.
template <class F>
void binary_kernel_cuda(const Tensor& out, const Tensor& a, const Tensor& b, const char* op, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  dispatch_floating(out.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    StridedDesc da(out.shape(), broadcast_strides(a.shape(), a.strides(), out.shape()), 0);
    StridedDesc db(out.shape(), broadcast_strides(b.shape(), b.strides(), out.shape()), 0);
    binary_kernel<<<blocks_for(n), kThreads>>>(out.data<T>(), a.data<T>(), da, b.data<T>(), db, n, f);
  });
  TG_CUDA_CHECK_LAUNCH(op);
}

// out = f(x); out contiguous of x's shape.
template <class F>
void unary_kernel_cuda(const Tensor& out, const Tensor& x, const char* op, F f) {
  const int64_t n = out.numel();
  if (n == 0) return;
  dispatch_floating(out.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    unary_kernel<<<blocks_for(n), kThreads>>>(out.data<T>(), x.data<T>(), StridedDesc(x), n, f);
  });
  TG_CUDA_CHECK_LAUNCH(op);
}

}  // namespace tg
