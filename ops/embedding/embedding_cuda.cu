// The GPU twins of embedding_cpu.cpp: one thread per output element; the backward adds each
// gradient row into its weight row with atomicAdd (repeated indices meet there; the order of
// the additions is not fixed, so float32 sums may differ from the CPU's in the last bits).
#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/embedding/embedding.h"

namespace tg {

namespace {

// out (N, C) = weight[indices[n], c] (= writes); weight (V, C) with strides (sv, sc).
template <class T>
__global__ void embedding_forward_kernel(T* out, const int64_t* indices, const T* weight, int64_t sv, int64_t sc,
                                         int64_t N, int64_t C) {
  TG_GRID_STRIDE_LOOP(i, N * C) {
    const int64_t n = i / C, c = i % C;
    out[i] = weight[indices[n] * sv + c * sc];
  }
}

// dweight (V, C) += dout (N, C) row n into row indices[n], except padding_idx (+= accumulates).
template <class T>
__global__ void embedding_backward_kernel(T* dweight, const T* dout, const int64_t* indices, int64_t padding_idx,
                                          int64_t N, int64_t C) {
  TG_GRID_STRIDE_LOOP(i, N * C) {
    const int64_t n = i / C, c = i % C;
    if (indices[n] != padding_idx) atomicAdd(dweight + indices[n] * C + c, dout[i]);
  }
}

}  // namespace

void embedding_forward_cuda(const Tensor& out, const Tensor& indices, const Tensor& weight) {
  // out (N, C), indices (N), weight (V, C)
  const int64_t N = indices.numel(), C = weight.size(1);
  if (N * C == 0) return;
  dispatch_floating(weight.dtype(), "embedding", [&](auto zero) {
    using T = decltype(zero);
    embedding_forward_kernel<<<blocks_for(N * C), kThreads>>>(out.data<T>(), indices.data<int64_t>(), weight.data<T>(),
                                                              weight.strides()[0], weight.strides()[1], N, C);
  });
  TG_CUDA_CHECK_LAUNCH("embedding");
}

void embedding_backward_cuda(const Tensor& dweight, const Tensor& dout, const Tensor& indices, int64_t padding_idx) {
  // dweight (V, C), dout (N, C), indices (N)
  const int64_t N = indices.numel(), C = dweight.size(1);
  if (N * C == 0) return;
  dispatch_floating(dweight.dtype(), "embedding", [&](auto zero) {
    using T = decltype(zero);
    embedding_backward_kernel<<<blocks_for(N * C), kThreads>>>(dweight.data<T>(), dout.data<T>(),
                                                               indices.data<int64_t>(), padding_idx, N, C);
  });
  TG_CUDA_CHECK_LAUNCH("embedding");
}

}  // namespace tg
