// The GPU twins of clip_grad_cpu.cpp. The norm: each block folds its grid-stride share of the
// gradient into a double and writes one partial value; the host adds (or maxes) the partials.
#include <cmath>
#include <vector>

#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "core/factories.h"
#include "ops/common/block_reduce_cuda.cuh"
#include "optim/clip_grad.h"
#include "optim/norm_term.h"

namespace tg {

namespace {

// partial[block] = sum |g|^norm_type over the block's elements, or their max |g| (NaN wins)
// when inf_norm (= writes).
template <class T>
__global__ void grad_norm_part_kernel(double* partial, const T* g, int64_t n, double norm_type, bool inf_norm) {
  double acc = 0;
  TG_GRID_STRIDE_LOOP(i, n) {
    const double a = fabs(static_cast<double>(g[i]));
    acc = inf_norm ? max_keep_nan(acc, a) : acc + norm_term(a, norm_type);
  }
  acc = inf_norm ? block_max(acc) : block_sum(acc);  // inf_norm is the same for every thread
  if (threadIdx.x == 0) partial[blockIdx.x] = acc;
}

// g *= scale (in place).
template <class T>
__global__ void grad_scale_kernel(T* g, T scale, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) g[i] *= scale;
}

// g = clamp(g, -hi, hi) (in place), NaN kept.
template <class T>
__global__ void grad_clamp_kernel(T* g, T hi, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) g[i] = g[i] > hi ? hi : (g[i] < -hi ? -hi : g[i]);
}

double norm_part_of(const Tensor& grad, double norm_type) {
  const int64_t n = grad.numel();
  if (n == 0) return 0;
  const bool inf_norm = norm_type == kInfNorm;
  const int blocks = blocks_for(n) < 1024 ? blocks_for(n) : 1024;
  Tensor partial = empty({blocks}, kF64, grad.device());
  dispatch_floating(grad.dtype(), "clip_grad_norm", [&](auto zero) {
    using T = decltype(zero);
    grad_norm_part_kernel<<<blocks, kThreads>>>(partial.data<double>(), grad.data<T>(), n, norm_type, inf_norm);
  });
  TG_CUDA_CHECK_LAUNCH("clip_grad_norm");
  double total = 0;
  for (double part : partial.to_vector<double>()) total = combine_norm_parts(total, part, inf_norm);
  return total;
}

void scale_one(const Tensor& grad, double scale) {
  const int64_t n = grad.numel();
  if (n == 0) return;
  dispatch_floating(grad.dtype(), "clip_grad_norm", [&](auto zero) {
    using T = decltype(zero);
    grad_scale_kernel<<<blocks_for(n), kThreads>>>(grad.data<T>(), static_cast<T>(scale), n);
  });
  TG_CUDA_CHECK_LAUNCH("clip_grad_norm");
}

void clamp_one(const Tensor& grad, double clip) {
  const int64_t n = grad.numel();
  if (n == 0) return;
  dispatch_floating(grad.dtype(), "clip_grad_value", [&](auto zero) {
    using T = decltype(zero);
    grad_clamp_kernel<<<blocks_for(n), kThreads>>>(grad.data<T>(), static_cast<T>(clip), n);
  });
  TG_CUDA_CHECK_LAUNCH("clip_grad_value");
}

}  // namespace

double grads_norm_part_cuda(const std::vector<Tensor>& grads, double norm_type) {
  double total = 0;
  for (const Tensor& grad : grads)
    total = combine_norm_parts(total, norm_part_of(grad, norm_type), norm_type == kInfNorm);
  return total;
}

void grads_scale_cuda(const std::vector<Tensor>& grads, double scale) {
  for (const Tensor& grad : grads) scale_one(grad, scale);
}

void grads_clamp_cuda(const std::vector<Tensor>& grads, double clip) {
  for (const Tensor& grad : grads) clamp_one(grad, clip);
}

}  // namespace tg
