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
#include "ops/common/philox_lanes.h"
#include "ops/common/vec_math.h"
#include "ops/fused/fused_attention/fused_attention.h"
#include "ops/fused/fused_attention/fused_attention_tiles.h"

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

// The keys j0..j0+cols-1 of a block's tile: all kBlockK, fewer in the last tile or where
// is_causal ends the block's keys.
struct KeyTile {
  int64_t j0, cols;
  KeyTile(const QueryBlock& qb, int64_t j0) : j0(j0), cols(std::min(kBlockK, qb.key_end - j0)) {}
};

// s[r * kBlockK + c] = -inf where a boolean mask (attn_mask, key_padding_mask) hides key j0 + c
// from query i0 + r of the block's head; is_causal is not looked at. A row of a mask that hides
// nothing (a padding mask of a batch without padding) costs one pass over its bytes.
template <class T>
void hide_masked_keys(T* s, const QueryBlock& qb, const KeyTile& t, const FusedAttentionParams& p) {
  const int64_t b = qb.n / p.H, h = qb.n % p.H;
  for (const AttentionMaskView* mask : {&p.attn_mask, &p.key_padding_mask}) {
    if (!mask->data) continue;
    const uint8_t* first = mask_bytes(static_cast<const bool*>(mask->data)) + b * mask->sb + h * mask->sh +
                           qb.i0 * mask->st + t.j0 * mask->ss;
    for (int64_t r = 0; r < qb.rows; ++r) {
      const uint8_t* hidden = first + r * mask->st;
      uint8_t any = 0;
      for (int64_t c = 0; c < t.cols; ++c) any |= hidden[c * mask->ss];
      if (!any && mask->st == 0) break;  // the same row for every query: nothing hidden in any
      if (!any) continue;
      T* sr = s + r * kBlockK;
      for (int64_t c = 0; c < t.cols; ++c)
        if (hidden[c * mask->ss]) sr[c] = static_cast<T>(-INFINITY);
    }
  }
}

// s (rows, kBlockK) = the scores of the block's queries (rows q_ld apart from q0) against the
// tile's keys, kt the tile transposed (hs, kBlockK) (= writes): q_i . k_j * scale + additive,
// -inf where masked. Without an additive mask, the same values as attention_score in loops
// without arithmetic per element: the scale is applied as the tile is stored (dot * scale, as
// attention_score has it), and the masks only write -inf.
template <class T>
void score_tile(T* s, const T* q0, int64_t q_ld, const T* kt, const QueryBlock& qb, const KeyTile& t,
                const FusedAttentionParams& p) {
  if (!p.additive_mask.data) {
    tile_gemm(s, kBlockK, q0, q_ld, 1, kt, kBlockK, qb.rows, p.hs, t.cols, static_cast<T>(p.scale), false);
    if (p.is_causal)  // keys j > i, i.e. c > i - j0
      for (int64_t r = 0; r < qb.rows; ++r)
        std::fill(s + r * kBlockK + std::clamp<int64_t>(qb.i0 + r - t.j0 + 1, 0, t.cols), s + r * kBlockK + t.cols,
                  static_cast<T>(-INFINITY));
    hide_masked_keys(s, qb, t, p);
    return;
  }
  tile_gemm(s, kBlockK, q0, q_ld, 1, kt, kBlockK, qb.rows, p.hs, t.cols, T(1), false);
  const int64_t b = qb.n / p.H, h = qb.n % p.H;
  for (int64_t r = 0; r < qb.rows; ++r)
    for (int64_t c = 0; c < t.cols; ++c)
      s[r * kBlockK + c] = attention_score(p, s[r * kBlockK + c], b, h, qb.i0 + r, t.j0 + c);
}

// The loops along one query row of a tile. For float they run in TG_VEC_CLONES functions and
// take exp_vec; for double they stay plain loops over std::exp (the reference path).

// The largest of m and s[0..cols).
template <class T>
TG_INLINE_BODY T row_max_body(const T* s, int64_t cols, T m) {
  return max_vec(s, cols, m);
}

// s[c] = exp(s[c] - m) * z[c] (= writes; z == nullptr: z = 1); returns the sum of exp(s[c] - m).
template <class T>
TG_INLINE_BODY T exp_weights_body(T* s, const T* z, int64_t cols, T m) {
  T sum[1][1];
  if (z)
    sum_rows<1>(cols, sum, [&](int, int64_t c) {
      const T e = exp_vec(s[c] - m);  // masked: exp(-inf) = 0
      s[c] = e * z[c];
      return e;
    });
  else
    sum_rows<1>(cols, sum, [&](int, int64_t c) {
      const T e = exp_vec(s[c] - m);
      s[c] = e;
      return e;
    });
  return sum[0][0];
}

// With p = exp(s - lse), the probabilities: ds = p (z dp - D) scale into s, p z into dp
// (= writes; z == nullptr: z = 1).
template <class T>
TG_INLINE_BODY void weight_grads_body(T* s, T* dp, const T* z, int64_t cols, T lse, T D, T scale) {
  if (z) {
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) {
      const T prob = exp_vec(s[c] - lse);  // masked: 0
      s[c] = prob * (z[c] * dp[c] - D) * scale;  // times the scale of s = q.k * scale
      dp[c] = prob * z[c];
    }
  } else {
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) {
      const T prob = exp_vec(s[c] - lse);
      s[c] = prob * (dp[c] - D) * scale;
      dp[c] = prob;
    }
  }
}

// d[r] = the dot product of rows r of x and y (n each; rows x_ld and y_ld apart), for r < rows:
// D_i = dout_i . out_i of a block's rows. For float in vector lanes, in one call so that the
// rows' serial sums overlap; for double in order (the reference).
TG_VEC_CLONES void dots(float* d, const float* x, int64_t x_ld, const float* y, int64_t y_ld, int64_t rows,
                        int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    const float *xr = x + r * x_ld, *yr = y + r * y_ld;
    float sum[1][1];
    sum_rows<1>(n, sum, [&](int, int64_t j) { return xr[j] * yr[j]; });
    d[r] = sum[0][0];
  }
}
void dots(double* d, const double* x, int64_t x_ld, const double* y, int64_t y_ld, int64_t rows, int64_t n) {
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) sum += x[r * x_ld + j] * y[r * y_ld + j];
    d[r] = sum;
  }
}
TG_VEC_CLONES float row_max(const float* s, int64_t cols, float m) { return row_max_body(s, cols, m); }
double row_max(const double* s, int64_t cols, double m) { return row_max_body(s, cols, m); }
TG_VEC_CLONES float exp_weights(float* s, const float* z, int64_t cols, float m) {
  return exp_weights_body(s, z, cols, m);
}
double exp_weights(double* s, const double* z, int64_t cols, double m) { return exp_weights_body(s, z, cols, m); }
TG_VEC_CLONES void weight_grads(float* s, float* dp, const float* z, int64_t cols, float lse, float D, float scale) {
  weight_grads_body(s, dp, z, cols, lse, D, scale);
}
void weight_grads(double* s, double* dp, const double* z, int64_t cols, double lse, double D, double scale) {
  weight_grads_body(s, dp, z, cols, lse, D, scale);
}

// z[c] = scale where element first + c of the draws in words (`bits` bits each: DropoutDraw) is
// kept, i.e. at least threshold, else 0 (= writes), c < cols.
template <class T>
TG_INLINE_BODY void multipliers_body(T* z, const uint32_t* words, int64_t first, uint32_t bits, int64_t cols,
                                     uint32_t threshold, T scale) {
  if (bits == 16) {
    const HalfWord* halves = reinterpret_cast<const HalfWord*>(words) + first;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) z[c] = halves[c] >= threshold ? scale : T(0);
    return;
  }
  words += first;
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) z[c] = words[c] >= threshold ? scale : T(0);
}
TG_VEC_CLONES void multipliers(float* z, const uint32_t* words, int64_t first, uint32_t bits, int64_t cols,
                               uint32_t threshold, float scale) {
  multipliers_body(z, words, first, bits, cols, threshold, scale);
}
void multipliers(double* z, const uint32_t* words, int64_t first, uint32_t bits, int64_t cols, uint32_t threshold,
                 double scale) {
  multipliers_body(z, words, first, bits, cols, threshold, scale);
}

// The dropout multipliers z_ij of query row i of head n against keys j0..j0+cols-1, for the
// element e = (n*T + i)*S + j of the draw: the decisions of DropoutRow and of ops/dropout.
// The words are drawn into a buffer that serves the next rows too when they follow in the
// draw (when one key tile spans all S keys, the rows of a block are consecutive elements).
class DropoutTile {
 public:
  explicit DropoutTile(const FusedAttentionParams& p) : p_(p) {}

  // z[0..cols) = dropout_scale where kept, 0 where dropped (= writes), returned; without
  // dropout nullptr, i.e. z = 1.
  template <class T>
  const T* row(T* z, int64_t n, int64_t i, int64_t j0, int64_t cols) {
    if (p_.dropout_p == 0) return nullptr;
    if (p_.dropout.keeps_nothing()) {  // p = 1
      std::fill_n(z, cols, T(0));
      return z;
    }
    const uint64_t first = static_cast<uint64_t>((n * p_.T + i) * p_.S + j0), end = first + cols;
    if (first < start_ || end > start_ + filled_) draw(first, end);
    last_end_ = end;
    multipliers(z, words_, static_cast<int64_t>(first - start_), p_.dropout.bits, cols,
                static_cast<uint32_t>(p_.dropout.threshold), static_cast<T>(p_.dropout_scale));
    return z;
  }

 private:
  static constexpr int64_t kWords = 8 * kPhiloxWords;
  static_assert(kWords >= kBlockK + 3);  // one tile row and the draws before it in its counter, 32 bits each

  // words_ = the draws of elements start_.. (a multiple of the draw's per_counter()), filled_ of
  // them: from first's counter to end, or, when first continues the previous request, a whole
  // buffer ahead.
  void draw(uint64_t first, uint64_t end) {
    const DropoutDraw& draw = p_.dropout;
    const uint64_t per_counter = draw.per_counter(), per_word = 32 / draw.bits;
    start_ = first / per_counter * per_counter;
    const auto need = static_cast<int64_t>((end - start_ + per_word - 1) / per_word);
    const int64_t words = first == last_end_ ? kWords : (need + kPhiloxWords - 1) / kPhiloxWords * kPhiloxWords;
    filled_ = words * static_cast<int64_t>(per_word);
    philox_words(words_, words, draw.seed, draw.counter(start_));
  }

  const FusedAttentionParams& p_;
  uint64_t start_ = 0, last_end_ = UINT64_MAX;
  int64_t filled_ = 0;
  uint32_t words_[kWords];
};

bool worth_threads(const FusedAttentionParams& p) {
  return p.B * p.H * p.T * p.S * (p.hs + p.hv) > kParallelGrain;
}

// Thread `thread` of `threads`: its contiguous range of the work items (a block of query rows of
// one head each), whose query blocks of one head share the transposed keys. Each item is computed
// alone, so the bits do not depend on the split.
template <class T>
void forward(const Tensor& out_t, const Tensor& lse_t, const Tensor& q_t, const Tensor& k_t, const Tensor& v_t,
             const FusedAttentionParams& p, int thread, int threads) {
  const AttentionRows<T> q(q_t), k(k_t), v(v_t), out(out_t);
  T* lse = lse_t.data<T>();
  const int64_t items = p.B * p.H * ((p.T + kBlockQ - 1) / kBlockQ), hv = p.hv;
  std::vector<T> s(kBlockQ * kBlockK), acc(kBlockQ * hv);
  std::array<T, kBlockQ> m, l;  // running max and sum of exp(s - m) per row
  std::array<T, kBlockK> z;     // one row's dropout multipliers
  DropoutTile dropout(p);
  TransposedTiles<T> kt(p.S, p.hs);
  for (int64_t item = items * thread / threads; item < items * (thread + 1) / threads; ++item) {
    const QueryBlock qb(p, item);
    std::fill(m.begin(), m.end(), static_cast<T>(-INFINITY));
    std::fill(l.begin(), l.end(), T(0));
    std::fill(acc.begin(), acc.end(), T(0));
    for (int64_t j0 = 0; j0 < qb.key_end; j0 += kBlockK) {
      const KeyTile t(qb, j0);
      score_tile(s.data(), q.row(qb.n, qb.i0), q.sl, kt.tile(k.row(qb.n, 0), k.sl, j0), qb, t, p);
      for (int64_t r = 0; r < qb.rows; ++r) {
        T* sr = s.data() + r * kBlockK;
        T* ar = acc.data() + r * hv;
        const T m_new = row_max(sr, t.cols, m[r]);
        if (m_new == -INFINITY) {  // every key so far is masked for this row: no weight
          std::fill_n(sr, t.cols, T(0));
          continue;
        }
        if (m[r] == -INFINITY) {  // the row's first key seen: nothing summed yet (l and acc 0)
          m[r] = m_new;
        } else if (m_new != m[r]) {  // the max grew: rescale what was summed under the old one
          const T correction = std::exp(m[r] - m_new);
          l[r] *= correction;
          for (int64_t d = 0; d < hv; ++d) ar[d] *= correction;
          m[r] = m_new;
        }
        // the row's weights for v, before normalising
        l[r] += exp_weights(sr, dropout.row(z.data(), qb.n, qb.i0 + r, j0, t.cols), t.cols, m_new);
      }
      // acc (rows, hv) += weights (rows, cols) . v (cols, hv)
      tile_gemm(acc.data(), hv, s.data(), kBlockK, 1, v.row(qb.n, j0), v.sl, qb.rows, t.cols, hv, T(1), true);
    }
    for (int64_t r = 0; r < qb.rows; ++r) {
      const int64_t row = qb.n * p.T + qb.i0 + r;
      const bool all_masked = m[r] == -INFINITY;  // no key at all: zeros, as the composed softmax
      const T inv = all_masked ? T(0) : T(1) / l[r];
      T* out_row = out.row(qb.n, qb.i0 + r);
      for (int64_t d = 0; d < hv; ++d) out_row[d] = acc[r * hv + d] * inv;
      lse[row] = all_masked ? static_cast<T>(-INFINITY) : m[r] + std::log(l[r]);
    }
  }
}

// dk and dv of one head are written by every work item of that head. The items are split
// into one contiguous range per thread; a head whose items all lie in one thread's range is
// zeroed at its first item and accumulated straight into dk/dv, a head shared with another
// thread (at most the first and the last of each range) into that thread's private copy; the
// copies are summed into the zeroed head in thread order at the end.
template <class T>
struct SharedHead {
  int64_t n = -1;
  std::vector<T> dk, dv;
};

template <class T>
void backward(const Tensor& dq_t, const Tensor& dk_t, const Tensor& dv_t, const Tensor& out_t, const Tensor& lse_t,
              const Tensor& dout_t, const Tensor& q_t, const Tensor& k_t, const Tensor& v_t,
              const FusedAttentionParams& p) {
  const AttentionRows<T> q(q_t), k(k_t), v(v_t), dout(dout_t), dq(dq_t), dk(dk_t), dv(dv_t);
  const AttentionRows<const T> out(out_t);
  const T* lse = lse_t.data<T>();
  const int64_t hs = p.hs, hv = p.hv, blocks = (p.T + kBlockQ - 1) / kBlockQ, items = p.B * p.H * blocks;
  const T scale = static_cast<T>(p.scale);
  auto zero_head = [&](int64_t n) {  // dk and dv's rows of head n
    for (int64_t j = 0; j < p.S; ++j) std::fill_n(dk.row(n, j), hs, T(0)), std::fill_n(dv.row(n, j), hv, T(0));
  };
  if (items == 0)  // no queries: no gradient for the keys and values
    for (int64_t n = 0; n < p.B * p.H; ++n) zero_head(n);
  std::vector<std::array<SharedHead<T>, 2>> shared(omp_get_max_threads());
#pragma omp parallel if (worth_threads(p))
  {
    const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
    const int64_t begin = items * thread / threads, end = items * (thread + 1) / threads;
    // ds (rows, kBlockK) overwrites the scores s, p*z overwrites dp = dout_i . v_j
    std::vector<T> s(kBlockQ * kBlockK), dp(kBlockQ * kBlockK);
    std::array<T, kBlockQ> D;  // D_i = dout_i . out_i
    std::array<T, kBlockK> z;  // one row's dropout multipliers
    DropoutTile dropout(p);
    TransposedTiles<T> kt(p.S, hs), vt(p.S, hv);
    for (int64_t item = begin; item < end; ++item) {
      const QueryBlock qb(p, item);
      // key j's rows of this head's dk and dv at dk_n + j*dk_ld, dv_n + j*dv_ld
      T *dk_n = dk.row(qb.n, 0), *dv_n = dv.row(qb.n, 0);
      int64_t dk_ld = dk.sl, dv_ld = dv.sl;
      if (qb.n * blocks < begin || (qb.n + 1) * blocks > end) {  // shared head: private copy
        SharedHead<T>& mine = shared[thread][qb.n * blocks < begin ? 0 : 1];
        if (mine.n != qb.n) mine = {qb.n, std::vector<T>(p.S * hs, T(0)), std::vector<T>(p.S * hv, T(0))};
        dk_n = mine.dk.data(), dv_n = mine.dv.data(), dk_ld = hs, dv_ld = hv;
      } else if (qb.i0 == 0) {  // the first item of a head this thread owns
        zero_head(qb.n);
      }
      // the block's rows of q, dout and dq start at q0, g0, dq0
      const T *q0 = q.row(qb.n, qb.i0), *g0 = dout.row(qb.n, qb.i0);
      T* dq0 = dq.row(qb.n, qb.i0);
      dots(D.data(), g0, dout.sl, out.row(qb.n, qb.i0), out.sl, qb.rows, hv);
      if (qb.key_end == 0)  // no key tile writes dq
        for (int64_t r = 0; r < qb.rows; ++r) std::fill_n(dq0 + r * dq.sl, hs, T(0));
      for (int64_t j0 = 0; j0 < qb.key_end; j0 += kBlockK) {
        const KeyTile t(qb, j0);
        score_tile(s.data(), q0, q.sl, kt.tile(k.row(qb.n, 0), k.sl, j0), qb, t, p);
        // dp (rows, cols) = dout (rows, hv) . v^T (hv, cols)
        tile_gemm(dp.data(), kBlockK, g0, dout.sl, 1, vt.tile(v.row(qb.n, 0), v.sl, j0), kBlockK, qb.rows, hv,
                  t.cols, T(1), false);
        for (int64_t r = 0; r < qb.rows; ++r) {
          T *sr = s.data() + r * kBlockK, *dpr = dp.data() + r * kBlockK;
          const T L = lse[qb.n * p.T + qb.i0 + r];
          if (L == -INFINITY) {  // every key masked: no gradient from this row
            std::fill_n(sr, t.cols, T(0));
            std::fill_n(dpr, t.cols, T(0));
            continue;
          }
          weight_grads(sr, dpr, dropout.row(z.data(), qb.n, qb.i0 + r, j0, t.cols), t.cols, L, D[r], scale);
        }
        // dq (rows, hs) = (the first tile) or += ds (rows, cols) . k (cols, hs)
        tile_gemm(dq0, dq.sl, s.data(), kBlockK, 1, k.row(qb.n, j0), k.sl, qb.rows, t.cols, hs, T(1), j0 > 0);
        // dk (cols, hs) += ds^T (cols, rows) . q (rows, hs); dv (cols, hv) += (p z)^T . dout (rows, hv)
        tile_gemm(dk_n + j0 * dk_ld, dk_ld, s.data(), 1, kBlockK, q0, q.sl, t.cols, qb.rows, hs, T(1), true);
        tile_gemm(dv_n + j0 * dv_ld, dv_ld, dp.data(), 1, kBlockK, g0, dout.sl, t.cols, qb.rows, hv, T(1), true);
      }
    }
  }
  for (const auto& pair : shared)
    for (const SharedHead<T>& head : pair)
      if (head.n >= 0) zero_head(head.n);
  for (const auto& pair : shared)
    for (const SharedHead<T>& head : pair) {
      if (head.n < 0) continue;
      for (int64_t j = 0; j < p.S; ++j) {
        T *dk_row = dk.row(head.n, j), *dv_row = dv.row(head.n, j);
        for (int64_t d = 0; d < hs; ++d) dk_row[d] += head.dk[j * hs + d];
        for (int64_t d = 0; d < hv; ++d) dv_row[d] += head.dv[j * hv + d];
      }
    }
}

}  // namespace

void fused_attention_forward_cpu(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                 const Tensor& v, const FusedAttentionParams& params) {
#pragma omp parallel if (worth_threads(params))
  fused_attention_forward_part_cpu(out, lse, q, k, v, params, omp_get_thread_num(), omp_get_num_threads());
}

void fused_attention_forward_part_cpu(const Tensor& out, const Tensor& lse, const Tensor& q, const Tensor& k,
                                      const Tensor& v, const FusedAttentionParams& params, int thread, int threads) {
  // out (B,H,T,hv) rows (written), lse (B,H,T) contiguous; q (B,H,T,hs), k (B,H,S,hs), v (B,H,S,hv) rows
  dispatch_floating(q.dtype(), "fused_attention", [&](auto zero) {
    forward<decltype(zero)>(out, lse, q, k, v, params, thread, threads);
  });
}

void fused_attention_backward_cpu(const Tensor& dq, const Tensor& dk, const Tensor& dv, const Tensor& out,
                                  const Tensor& lse, const Tensor& dout, const Tensor& q, const Tensor& k,
                                  const Tensor& v, const FusedAttentionParams& params) {
  // dq (B,H,T,hs), dk (B,H,S,hs), dv (B,H,S,hv) rows (= writes); out, lse as saved; dout
  // (B,H,T,hv) rows
  dispatch_floating(q.dtype(), "fused_attention", [&](auto zero) {
    backward<decltype(zero)>(dq, dk, dv, out, lse, dout, q, k, v, params);
  });
}

}  // namespace tg
