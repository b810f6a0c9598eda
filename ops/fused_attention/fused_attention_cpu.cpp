// fused_attention on the CPU: tiles of kBlockQ query rows x kBlockK keys. A work item is one
// head n = b*H + h and one block of query rows; OpenMP spreads the items over the threads.
// Per thread the scratch holds a (kBlockQ, kBlockK) tile of scores, the tile's keys transposed
// and the running softmax state: O(kBlockK * (kBlockQ + hs) + kBlockQ * hv), whatever T and S.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/fused_attention/fused_attention.h"
#include "ops/fused_attention/fused_attention_tiles.h"

namespace tg {

namespace {

using namespace fused_attention_tiles;

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

// The row pointers of one tile: the block's query rows (and their dout rows), and keys
// j0..j0+cols-1 of k and v.
template <class T>
struct TileRows {
  const T *q[kBlockQ], *g[kBlockQ], *k[kBlockK], *v[kBlockK];
  int64_t j0 = 0, cols = 0;
};

// s (rows, kBlockK) = the scores of the block's queries against the tile's keys (= writes):
// q_i . k_j * scale + additive, -inf where masked; kt is scratch (hs, kBlockK).
template <class T>
void score_tile(T* s, T* kt, const TileRows<T>& t, const QueryBlock& qb, const FusedAttentionParams& p) {
  transpose_rows(kt, t.k, t.cols, p.hs);
  tile_product(s, t.q, kt, qb.rows, p.hs);
  const int64_t b = qb.n / p.H, h = qb.n % p.H;
  for (int64_t r = 0; r < qb.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c)
      s[r * kBlockK + c] = attention_score(p, s[r * kBlockK + c], b, h, qb.i0 + r, t.j0 + c);
}

// Points t at the keys j0.. of the block's tile.
template <class T>
void set_keys(TileRows<T>& t, const AttentionRows<T>& k, const AttentionRows<T>& v, const QueryBlock& qb,
              int64_t j0) {
  t.j0 = j0;
  t.cols = std::min(kBlockK, qb.key_end - j0);
  for (int64_t c = 0; c < t.cols; ++c) t.k[c] = k.row(qb.n, j0 + c), t.v[c] = v.row(qb.n, j0 + c);
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
    TileRows<T> t;
#pragma omp for schedule(dynamic)
    for (int64_t item = 0; item < items; ++item) {
      const QueryBlock qb(p, item);
      for (int64_t r = 0; r < qb.rows; ++r) t.q[r] = q.row(qb.n, qb.i0 + r);
      std::fill(m.begin(), m.end(), static_cast<T>(-INFINITY));
      std::fill(l.begin(), l.end(), T(0));
      std::fill(acc.begin(), acc.end(), T(0));
      for (int64_t j0 = 0; j0 < qb.key_end; j0 += kBlockK) {
        set_keys(t, k, v, qb, j0);
        score_tile(s.data(), kt.data(), t, qb, p);
        for (int64_t r = 0; r < qb.rows; ++r) {
          T* sr = s.data() + r * kBlockK;
          T* ar = acc.data() + r * hv;
          T m_new = m[r];
          for (int64_t c = 0; c < t.cols; ++c) m_new = std::max(m_new, sr[c]);
          if (m_new == -INFINITY) continue;  // every key so far is masked for this row
          if (m_new != m[r]) {  // the max grew: rescale what was summed under the old one
            const T correction = std::exp(m[r] - m_new);  // 0 while m[r] is -inf
            l[r] *= correction;
            for (int64_t d = 0; d < hv; ++d) ar[d] *= correction;
            m[r] = m_new;
          }
          DropoutRow z(p, qb.n, qb.i0 + r);
          for (int64_t c = 0; c < t.cols; ++c) {
            const T e = std::exp(sr[c] - m_new);  // masked: exp(-inf) = 0
            l[r] += e;
            sr[c] = e * z.at<T>(j0 + c);  // the row's weights for v, before normalising
          }
          accumulate_rows(ar, sr, 1, t.v, t.cols, hv);
        }
      }
      for (int64_t r = 0; r < qb.rows; ++r) {
        const int64_t row = qb.n * p.T + qb.i0 + r;
        const bool all_masked = m[r] == -INFINITY;  // no key at all: zeros, as the composed softmax
        const T inv = all_masked ? T(0) : T(1) / l[r];
        for (int64_t d = 0; d < hv; ++d) out[row * hv + d] = acc[r * hv + d] * inv;
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
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = items * thread / threads, end = items * (thread + 1) / threads;
    // ds (rows, kBlockK) overwrites the scores s, p*z overwrites dp = dout_i . v_j
    std::vector<T> s(kBlockQ * kBlockK), dp(kBlockQ * kBlockK), kt(hs * kBlockK), vt(hv * kBlockK);
    std::array<T, kBlockQ> D;  // D_i = dout_i . out_i
    TileRows<T> t;
    for (int64_t item = begin; item < end; ++item) {
      const QueryBlock qb(p, item);
      T *dk_n = dk + qb.n * p.S * hs, *dv_n = dv + qb.n * p.S * hv;
      if (qb.n * blocks < begin || (qb.n + 1) * blocks > end) {  // shared head: private copy
        SharedHead<T>& mine = shared[thread][qb.n * blocks < begin ? 0 : 1];
        if (mine.n != qb.n) mine = {qb.n, std::vector<T>(p.S * hs, T(0)), std::vector<T>(p.S * hv, T(0))};
        dk_n = mine.dk.data(), dv_n = mine.dv.data();
      }
      for (int64_t r = 0; r < qb.rows; ++r) {
        const int64_t row = qb.n * p.T + qb.i0 + r;
        t.q[r] = q.row(qb.n, qb.i0 + r);
        t.g[r] = dout.row(qb.n, qb.i0 + r);
        T sum = 0;
        for (int64_t d = 0; d < hv; ++d) sum += t.g[r][d] * out[row * hv + d];
        D[r] = sum;
        std::fill_n(dq + row * hs, hs, T(0));
      }
      for (int64_t j0 = 0; j0 < qb.key_end; j0 += kBlockK) {
        set_keys(t, k, v, qb, j0);
        score_tile(s.data(), kt.data(), t, qb, p);
        transpose_rows(vt.data(), t.v, t.cols, hv);
        tile_product(dp.data(), t.g, vt.data(), qb.rows, hv);
        for (int64_t r = 0; r < qb.rows; ++r) {
          T *sr = s.data() + r * kBlockK, *dpr = dp.data() + r * kBlockK;
          const T L = lse[qb.n * p.T + qb.i0 + r];
          if (L == -INFINITY) {  // every key masked: no gradient from this row
            std::fill_n(sr, t.cols, T(0));
            std::fill_n(dpr, t.cols, T(0));
            continue;
          }
          DropoutRow z(p, qb.n, qb.i0 + r);
          for (int64_t c = 0; c < t.cols; ++c) {
            const T prob = std::exp(sr[c] - L), zj = z.at<T>(j0 + c);  // masked: prob 0
            sr[c] = prob * (zj * dpr[c] - D[r]) * scale;  // ds, times the scale of s = q.k * scale
            dpr[c] = prob * zj;
          }
        }
        for (int64_t r = 0; r < qb.rows; ++r)  // dq_i += sum_j ds_ij k_j
          accumulate_rows(dq + (qb.n * p.T + qb.i0 + r) * hs, s.data() + r * kBlockK, 1, t.k, t.cols, hs);
        for (int64_t c = 0; c < t.cols; ++c) {  // dk_j += sum_i ds_ij q_i, dv_j += sum_i p_ij z_ij dout_i
          accumulate_rows(dk_n + (j0 + c) * hs, s.data() + c, kBlockK, t.q, qb.rows, hs);
          accumulate_rows(dv_n + (j0 + c) * hv, dp.data() + c, kBlockK, t.g, qb.rows, hv);
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
