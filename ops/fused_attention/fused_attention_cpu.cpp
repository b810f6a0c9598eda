// fused_attention on the CPU: tiles of kBlockQ query rows x kBlockK keys. A work item is one
// head n = b*H + h and one block of query rows; OpenMP spreads the items over the threads.
// Per item the scratch holds one (kBlockQ, kBlockK) tile of scores and the item's running
// softmax state: O(kBlockQ * (kBlockK + hv)) memory, whatever T and S are.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/fused_attention/fused_attention.h"

namespace tg {

namespace {

constexpr int64_t kBlockQ = 32;  // query rows per work item
constexpr int64_t kBlockK = 64;  // keys per tile

// One block of query rows i0..i0+rows-1 of head n, and the keys it may see: all S, or with
// is_causal only j < i0 + rows (later keys are masked for every row of the block).
struct QueryBlock {
  int64_t n, i0, rows, key_end;
  QueryBlock(const FusedAttentionParams& p, int64_t item) {
    const int64_t blocks = (p.T + kBlockQ - 1) / kBlockQ;
    n = item / blocks;
    i0 = (item % blocks) * kBlockQ;
    rows = std::min(kBlockQ, p.T - i0);
    key_end = p.is_causal ? std::min(p.S, i0 + rows) : p.S;
  }
};

// s (rows, kBlockK) = scores of the block's queries against keys j0..j0+cols-1 (= writes):
// q_i . k_j * scale + additive, -inf where masked. kt (hs, kBlockK) = those keys transposed
// (scratch), so that the inner loop runs over keys with unit stride.
template <class T>
void score_tile(T* s, T* kt, const AttentionRows<T>& q, const AttentionRows<T>& k, const QueryBlock& qb, int64_t j0, int64_t cols,
                const FusedAttentionParams& p) {
  for (int64_t c = 0; c < cols; ++c) {
    const T* kr = k.row(qb.n, j0 + c);
    for (int64_t d = 0; d < p.hs; ++d) kt[d * kBlockK + c] = kr[d];
  }
  const int64_t b = qb.n / p.H, h = qb.n % p.H;
  for (int64_t r = 0; r < qb.rows; ++r) {
    T* sr = s + r * kBlockK;
    const T* qr = q.row(qb.n, qb.i0 + r);
    std::fill(sr, sr + cols, T(0));
    for (int64_t d = 0; d < p.hs; ++d) {
      const T qd = qr[d];
      const T* ktd = kt + d * kBlockK;
#pragma omp simd
      for (int64_t c = 0; c < cols; ++c) sr[c] += qd * ktd[c];
    }
    for (int64_t c = 0; c < cols; ++c) sr[c] = attention_score(p, sr[c], b, h, qb.i0 + r, j0 + c);
  }
}

// y[0..n) += a * x[0..n)
template <class T>
inline void axpy(T* y, T a, const T* x, int64_t n) {
#pragma omp simd
  for (int64_t d = 0; d < n; ++d) y[d] += a * x[d];
}

bool worth_threads(const FusedAttentionParams& p) {
  return p.B * p.H * p.T * p.S * (p.hs + p.hv) > kParallelGrain;
}

template <class T>
void forward(const Tensor& out_t, const Tensor& lse_t, const Tensor& q_t, const Tensor& k_t, const Tensor& v_t,
             const FusedAttentionParams& p) {
  const AttentionRows<T> q(q_t), k(k_t), v(v_t);
  T* out = out_t.data<T>();
  T* lse = lse_t.data<T>();
  const int64_t items = p.B * p.H * ((p.T + kBlockQ - 1) / kBlockQ), hv = p.hv;
#pragma omp parallel if (worth_threads(p))
  {
    std::vector<T> s(kBlockQ * kBlockK), kt(p.hs * kBlockK), acc(kBlockQ * hv);
    std::array<T, kBlockQ> m, l;  // running max and sum of exp(s - m) per row
#pragma omp for schedule(dynamic)
    for (int64_t item = 0; item < items; ++item) {
      const QueryBlock qb(p, item);
      std::fill(m.begin(), m.end(), static_cast<T>(-INFINITY));
      std::fill(l.begin(), l.end(), T(0));
      std::fill(acc.begin(), acc.end(), T(0));
      for (int64_t j0 = 0; j0 < qb.key_end; j0 += kBlockK) {
        const int64_t cols = std::min(kBlockK, qb.key_end - j0);
        score_tile(s.data(), kt.data(), q, k, qb, j0, cols, p);
        for (int64_t r = 0; r < qb.rows; ++r) {
          const T* sr = s.data() + r * kBlockK;
          T* ar = acc.data() + r * hv;
          T m_new = m[r];
          for (int64_t c = 0; c < cols; ++c) m_new = std::max(m_new, sr[c]);
          if (m_new == -INFINITY) continue;  // every key so far is masked for this row
          if (m_new != m[r]) {  // the max grew: rescale what was summed under the old one
            const T correction = std::exp(m[r] - m_new);  // 0 while m[r] is -inf
            l[r] *= correction;
            for (int64_t d = 0; d < hv; ++d) ar[d] *= correction;
            m[r] = m_new;
          }
          DropoutRow z(p, qb.n, qb.i0 + r);
          for (int64_t c = 0; c < cols; ++c) {
            const T e = std::exp(sr[c] - m_new);  // masked: exp(-inf) = 0
            l[r] += e;
            const T w = e * z.at<T>(j0 + c);
            if (w != 0) axpy(ar, w, v.row(qb.n, j0 + c), hv);
          }
        }
      }
      for (int64_t r = 0; r < qb.rows; ++r) {
        const int64_t row = qb.n * p.T + qb.i0 + r;
        T* o = out + row * hv;
        const bool all_masked = m[r] == -INFINITY;  // no key at all: zeros, as the composed softmax
        const T inv = all_masked ? T(0) : T(1) / l[r];
        for (int64_t d = 0; d < hv; ++d) o[d] = acc[r * hv + d] * inv;
        lse[row] = all_masked ? static_cast<T>(-INFINITY) : m[r] + std::log(l[r]);
      }
    }
  }
}

// dk and dv of one head are written by every work item of that head. The items are split
// into one contiguous range per thread; a head whose items all lie in one thread's range is
// accumulated straight into dk/dv, a head shared with another thread (at most the first and
// the last of each range) into that thread's private copy, added in thread order at the end.
template <class T>
struct SharedHead {
  int64_t n = -1;
  std::vector<T> dk, dv;
};

template <class T>
void backward(const Tensor& dq_t, const Tensor& dk_t, const Tensor& dv_t, const Tensor& out_t, const Tensor& lse_t,
              const Tensor& dout_t, const Tensor& q_t, const Tensor& k_t, const Tensor& v_t,
              const FusedAttentionParams& p) {
  const AttentionRows<T> q(q_t), k(k_t), v(v_t), dout(dout_t);
  T *dq = dq_t.data<T>(), *dk = dk_t.data<T>(), *dv = dv_t.data<T>();
  const T *out = out_t.data<T>(), *lse = lse_t.data<T>();
  const int64_t hs = p.hs, hv = p.hv, blocks = (p.T + kBlockQ - 1) / kBlockQ, items = p.B * p.H * blocks;
  const T scale = static_cast<T>(p.scale);
  std::vector<std::array<SharedHead<T>, 2>> shared(omp_get_max_threads());
#pragma omp parallel if (worth_threads(p))
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t begin = items * t / threads, end = items * (t + 1) / threads;
    std::vector<T> s(kBlockQ * kBlockK), dp(kBlockQ * kBlockK), kt(hs * kBlockK), vt(hv * kBlockK);
    std::array<T, kBlockQ> D;  // D_i = dout_i . out_i
    for (int64_t item = begin; item < end; ++item) {
      const QueryBlock qb(p, item);
      T *dk_n = dk + qb.n * p.S * hs, *dv_n = dv + qb.n * p.S * hv;
      if (qb.n * blocks < begin || (qb.n + 1) * blocks > end) {  // shared head: private copy
        SharedHead<T>& mine = shared[t][qb.n * blocks < begin ? 0 : 1];
        if (mine.n != qb.n) mine = {qb.n, std::vector<T>(p.S * hs, T(0)), std::vector<T>(p.S * hv, T(0))};
        dk_n = mine.dk.data(), dv_n = mine.dv.data();
      }
      for (int64_t r = 0; r < qb.rows; ++r) {
        const T *g = dout.row(qb.n, qb.i0 + r), *o = out + (qb.n * p.T + qb.i0 + r) * hv;
        T sum = 0;
        for (int64_t d = 0; d < hv; ++d) sum += g[d] * o[d];
        D[r] = sum;
        std::fill_n(dq + (qb.n * p.T + qb.i0 + r) * hs, hs, T(0));
      }
      for (int64_t j0 = 0; j0 < qb.key_end; j0 += kBlockK) {
        const int64_t cols = std::min(kBlockK, qb.key_end - j0);
        score_tile(s.data(), kt.data(), q, k, qb, j0, cols, p);
        // dp (rows, cols) = dout_i . v_j, with vt (hv, kBlockK) = v_j transposed.
        for (int64_t c = 0; c < cols; ++c) {
          const T* vr = v.row(qb.n, j0 + c);
          for (int64_t d = 0; d < hv; ++d) vt[d * kBlockK + c] = vr[d];
        }
        for (int64_t r = 0; r < qb.rows; ++r) {
          T* dpr = dp.data() + r * kBlockK;
          const T* g = dout.row(qb.n, qb.i0 + r);
          std::fill(dpr, dpr + cols, T(0));
          for (int64_t d = 0; d < hv; ++d) axpy(dpr, g[d], vt.data() + d * kBlockK, cols);
        }
        for (int64_t r = 0; r < qb.rows; ++r) {
          const int64_t i = qb.i0 + r;
          const T L = lse[qb.n * p.T + i];
          if (L == -INFINITY) continue;  // every key masked: no gradient from this row
          const T *qr = q.row(qb.n, i), *g = dout.row(qb.n, i);
          T* dqr = dq + (qb.n * p.T + i) * hs;
          DropoutRow z(p, qb.n, i);
          for (int64_t c = 0; c < cols; ++c) {
            const T prob = std::exp(s[r * kBlockK + c] - L);  // masked: 0
            if (prob == 0) continue;
            const T zj = z.at<T>(j0 + c);
            const T ds = prob * (zj * dp[r * kBlockK + c] - D[r]) * scale;  // scale: from s = q.k * scale
            const int64_t j = j0 + c;
            axpy(dqr, ds, k.row(qb.n, j), hs);
            axpy(dk_n + j * hs, ds, qr, hs);
            if (zj != 0) axpy(dv_n + j * hv, prob * zj, g, hv);
          }
        }
      }
    }
  }
  for (const auto& pair : shared)
    for (const SharedHead<T>& head : pair) {
      if (head.n < 0) continue;
      for (int64_t e = 0; e < p.S * hs; ++e) dk[head.n * p.S * hs + e] += head.dk[e];
      for (int64_t e = 0; e < p.S * hv; ++e) dv[head.n * p.S * hv + e] += head.dv[e];
    }
}

}  // namespace

void fused_attention_forward_cpu(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const FusedAttentionParams& params) {
  // out (B,H,T,hv), lse (B,H,T) contiguous; q (B,H,T,hs), k (B,H,S,hs), v (B,H,S,hv) rows
  dispatch_floating(q.dtype(), "fused_attention", [&](auto zero) {
    forward<decltype(zero)>(out, lse, q, k, v, params);
  });
}

void fused_attention_backward_cpu(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& out,
                                  const Tensor& lse, const Tensor& dout, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const FusedAttentionParams& params) {
  // dq (B,H,T,hs), dk (B,H,S,hs), dv (B,H,S,hv) contiguous, dk and dv zeroed by the caller
  // (+= accumulates into them; dq is written); out, lse as saved; dout (B,H,T,hv) rows
  dispatch_floating(q.dtype(), "fused_attention", [&](auto zero) {
    backward<decltype(zero)>(dq, dk, dv, out, lse, dout, q, k, v, params);
  });
}

}  // namespace tg
