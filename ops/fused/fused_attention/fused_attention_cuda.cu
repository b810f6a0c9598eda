// fused_attention on the GPU, kept simple: one warp per (head, query row), its 32 lanes
// splitting the head dims, rows taken by a grid-stride loop. The forward walks the keys with
// an online softmax, keeping the running output in the out row itself; the backward recomputes
// each weight from lse, writes dq with the row's warp and adds into dk, dv with atomicAdd.
// Scores, masks and dropout come from fused_attention_params.h, as on the CPU.
#include <cmath>

#include "core/cuda/cuda_check.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"
#include "ops/fused/fused_attention/fused_attention.h"

namespace tg {

namespace {

constexpr int kWarp = 32;

// The sum of x over the warp's lanes, the same value (lane 0's) in every lane.
template <class T>
__device__ T warp_sum(T x) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return __shfl_sync(0xffffffffu, x, 0);
}

// lane's share of a . b over n elements, summed over the warp
template <class T>
__device__ T warp_dot(const T* a, const T* b, int64_t n, int lane) {
  T sum = 0;
  for (int64_t d = lane; d < n; d += kWarp) sum += a[d] * b[d];
  return warp_sum(sum);
}

// for (row of this warp) { ... }: rows = B*H*T, every lane of a warp on the same row
#define TG_WARP_PER_ROW_LOOP(row, rows)                                                                  \
  for (int64_t row = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / kWarp; row < (rows); \
       row += static_cast<int64_t>(gridDim.x) * blockDim.x / kWarp)

// out = attention(q, k, v), lse = log-sum-exp of the scores (= writes).
template <class T>
__global__ void fused_attention_forward_kernel(T* out, T* lse, AttentionRows<const T> q, AttentionRows<const T> k,
                                               AttentionRows<const T> v, FusedAttentionParams p) {
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  TG_WARP_PER_ROW_LOOP(row, p.B * p.H * p.T) {
    const int64_t n = row / p.T, i = row % p.T, b = n / p.H, h = n % p.H;
    const int64_t key_end = p.is_causal && i + 1 < p.S ? i + 1 : p.S;
    const T* qr = q.row(n, i);
    T* o = out + row * p.hv;
    for (int64_t d = lane; d < p.hv; d += kWarp) o[d] = T(0);
    T m = static_cast<T>(-INFINITY), l = 0;  // running max, running sum of exp(s - m)
    DropoutRow z(p, n, i);
    for (int64_t j = 0; j < key_end; ++j) {
      const T s = attention_score(p, warp_dot(qr, k.row(n, j), p.hs, lane), b, h, i, j);
      if (s == static_cast<T>(-INFINITY)) continue;  // masked: weight 0 (the same in every lane)
      const T m_new = s > m ? s : m;
      const T correction = exp(m - m_new), e = exp(s - m_new);  // correction 0 while m is -inf
      const T w = e * z.at<T>(j);
      l = l * correction + e;
      const T* vr = v.row(n, j);
      for (int64_t d = lane; d < p.hv; d += kWarp) o[d] = o[d] * correction + w * vr[d];
      m = m_new;
    }
    const bool all_masked = m == static_cast<T>(-INFINITY);  // zeros, as the composed softmax
    for (int64_t d = lane; d < p.hv; d += kWarp) o[d] = all_masked ? T(0) : o[d] / l;
    if (lane == 0) lse[row] = all_masked ? static_cast<T>(-INFINITY) : m + log(l);
  }
}

// dq (= writes), dk, dv (+= accumulates, atomicAdd) from dout.
template <class T>
__global__ void fused_attention_backward_kernel(T* dq, T* dk, T* dv, const T* out, const T* lse,
                                                AttentionRows<const T> dout, AttentionRows<const T> q,
                                                AttentionRows<const T> k, AttentionRows<const T> v,
                                                FusedAttentionParams p) {
  const int lane = static_cast<int>(threadIdx.x % kWarp);
  const T scale = static_cast<T>(p.scale);
  TG_WARP_PER_ROW_LOOP(row, p.B * p.H * p.T) {
    const int64_t n = row / p.T, i = row % p.T, b = n / p.H, h = n % p.H;
    const int64_t key_end = p.is_causal && i + 1 < p.S ? i + 1 : p.S;
    const T *qr = q.row(n, i), *g = dout.row(n, i);
    T* dqr = dq + row * p.hs;
    for (int64_t d = lane; d < p.hs; d += kWarp) dqr[d] = T(0);
    const T L = lse[row];
    if (L == static_cast<T>(-INFINITY)) continue;  // every key masked: no gradient from this row
    const T D = warp_dot(g, out + row * p.hv, p.hv, lane);
    DropoutRow z(p, n, i);
    for (int64_t j = 0; j < key_end; ++j) {
      const T* kr = k.row(n, j);
      const T s = attention_score(p, warp_dot(qr, kr, p.hs, lane), b, h, i, j);
      if (s == static_cast<T>(-INFINITY)) continue;
      const T* vr = v.row(n, j);
      const T prob = exp(s - L), zj = z.at<T>(j);
      const T ds = prob * (zj * warp_dot(g, vr, p.hv, lane) - D) * scale;
      T *dkr = dk + (n * p.S + j) * p.hs, *dvr = dv + (n * p.S + j) * p.hv;
      for (int64_t d = lane; d < p.hs; d += kWarp) {
        dqr[d] += ds * kr[d];
        atomicAdd(dkr + d, ds * qr[d]);
      }
      if (zj != T(0))
        for (int64_t d = lane; d < p.hv; d += kWarp) atomicAdd(dvr + d, prob * zj * g[d]);
    }
  }
}

int warp_blocks(const FusedAttentionParams& p) { return blocks_for(p.B * p.H * p.T * kWarp); }

}  // namespace

void fused_attention_forward_cuda(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const FusedAttentionParams& params) {
  // out (B,H,T,hv), lse (B,H,T) contiguous; q (B,H,T,hs), k (B,H,S,hs), v (B,H,S,hv) rows
  if (params.B * params.H * params.T == 0) return;
  dispatch_floating(q.dtype(), "fused_attention", [&](auto zero) {
    using T = decltype(zero);
    fused_attention_forward_kernel<T><<<warp_blocks(params), kThreads>>>(
        out.data<T>(), lse.data<T>(), AttentionRows<const T>(q), AttentionRows<const T>(k),
        AttentionRows<const T>(v), params);
  });
  TG_CUDA_CHECK_LAUNCH("fused_attention");
}

void fused_attention_backward_cuda(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& out,
                                   const Tensor& lse, const Tensor& dout, const Tensor& q, const Tensor& k,
                                   const Tensor& v, const FusedAttentionParams& params) {
  // dq (B,H,T,hs) contiguous (= writes); dk (B,H,S,hs), dv (B,H,S,hv) contiguous and zeroed (+=)
  if (params.B * params.H * params.T == 0) return;
  dispatch_floating(q.dtype(), "fused_attention", [&](auto zero) {
    using T = decltype(zero);
    fused_attention_backward_kernel<T><<<warp_blocks(params), kThreads>>>(
        dq.data<T>(), dk.data<T>(), dv.data<T>(), out.data<T>(), lse.data<T>(), AttentionRows<const T>(dout),
        AttentionRows<const T>(q), AttentionRows<const T>(k), AttentionRows<const T>(v), params);
  });
  TG_CUDA_CHECK_LAUNCH("fused_attention");
}

}  // namespace tg
