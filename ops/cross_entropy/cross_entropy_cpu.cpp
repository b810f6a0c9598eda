#include <algorithm>
#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/cross_entropy/cross_entropy.h"

namespace tg {

namespace {

// float32 rows: float arithmetic and exp_vec, so that the loops over the C classes vectorise;
// kRowGroup rows at once. lse = m + log(sum_c exp(x_c - m)) and sumx = sum_c x_c of each of Rows
// rows (= writes); x (Rows, C), lse, sumx (Rows).
template <int Rows>
[[gnu::always_inline]] inline void lse_rows(float* lse, float* sumx, const float* x, int64_t C) {
  float m[Rows], sums[2][Rows];  // sum_c exp(x_c - m), sum_c x_c
  for (int r = 0; r < Rows; ++r) m[r] = max_vec(x + r * C, C, -INFINITY);  // a NaN logit reaches lse through exp
  sum_rows<Rows>(
      C, sums, [&](int r, int64_t c) { return exp_vec(x[r * C + c] - m[r]); },
      [&](int r, int64_t c) { return x[r * C + c]; });
  for (int r = 0; r < Rows; ++r) {
    lse[r] = m[r] + std::log(sums[0][r]);
    sumx[r] = sums[1][r];
  }
}

TG_VEC_CLONES void lse_rows_f32(float* lse, float* sumx, const float* x, int64_t rows, int64_t C) {
  int64_t r = 0;
  for (; r + kRowGroup <= rows; r += kRowGroup) lse_rows<kRowGroup>(lse + r, sumx + r, x + r * C, C);
  for (; r < rows; ++r) lse_rows<1>(lse + r, sumx + r, x + r * C, C);
}

// drow = gn * (exp(row - lse) - smooth) (= writes); drow, row (C)
TG_VEC_CLONES void softmax_minus_row_f32(float* drow, const float* row, int64_t C, float lse, float gn, float smooth) {
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) drow[c] = gn * (exp_vec(row[c] - lse) - smooth);
}

}  // namespace

void cross_entropy_forward_cpu(const Tensor& loss, const Tensor& lse, const Tensor& logits, const Tensor& target,
                               int64_t ignore_index, double label_smoothing) {
  // loss (N), lse (N), logits (N, C), target (N)
  const int64_t N = target.numel(), C = logits.size(-1);
  const int64_t* tgt = target.data<int64_t>();
  const double eps = label_smoothing;
  if (logits.dtype() == kF32) {
    float* l = loss.data<float>();
    float* ls = lse.data<float>();
    const float* x = logits.data<float>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n0 = 0; n0 < N; n0 += kRowGroup) {
      const int64_t rows = std::min<int64_t>(kRowGroup, N - n0);
      float sumx[kRowGroup];
      lse_rows_f32(ls + n0, sumx, x + n0 * C, rows, C);
      for (int64_t n = n0; n < n0 + rows; ++n) {
        if (tgt[n] == ignore_index) {
          l[n] = 0;
          continue;
        }
        l[n] = static_cast<float>(ls[n] - (1 - eps) * x[n * C + tgt[n]] - eps / C * sumx[n - n0]);
      }
    }
    return;
  }
  dispatch_floating(logits.dtype(), "cross_entropy", [&](auto zero) {
    using T = decltype(zero);
    T* l = loss.data<T>();
    T* ls = lse.data<T>();
    const T* x = logits.data<T>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n = 0; n < N; ++n) {
      const T* row = x + n * C;
      double m = row[0];
      for (int64_t c = 1; c < C; ++c) m = std::max(m, static_cast<double>(row[c]));
      double sumexp = 0, sumx = 0;  // double accumulation
      for (int64_t c = 0; c < C; ++c) sumexp += std::exp(row[c] - m), sumx += row[c];
      const double lse_n = m + std::log(sumexp);
      ls[n] = static_cast<T>(lse_n);
      l[n] = tgt[n] == ignore_index ? T(0) : static_cast<T>(lse_n - (1 - eps) * row[tgt[n]] - eps / C * sumx);
    }
  });
}

void cross_entropy_backward_cpu(const Tensor& dlogits, const Tensor& dloss, const Tensor& lse, const Tensor& logits,
                                const Tensor& target, double scale, int64_t ignore_index, double label_smoothing) {
  // dlogits (N, C), dloss (N) or (), lse (N), logits (N, C), target (N)
  const int64_t N = target.numel(), C = logits.size(-1);
  const int64_t dloss_step = dloss.numel() == 1 ? 0 : 1;
  const int64_t* tgt = target.data<int64_t>();
  const double eps = label_smoothing;
  if (logits.dtype() == kF32) {
    float* dx = dlogits.data<float>();
    const float* g = dloss.data<float>();
    const float* ls = lse.data<float>();
    const float* x = logits.data<float>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n = 0; n < N; ++n) {
      float* drow = dx + n * C;
      if (tgt[n] == ignore_index) {
        std::fill(drow, drow + C, 0.0f);
        continue;
      }
      const auto gn = static_cast<float>(g[n * dloss_step] * scale);
      softmax_minus_row_f32(drow, x + n * C, C, ls[n], gn, static_cast<float>(eps / C));  // q_c's eps/C part
      drow[tgt[n]] -= gn * static_cast<float>(1 - eps);                                  // and the target's
    }
    return;
  }
  dispatch_floating(logits.dtype(), "cross_entropy", [&](auto zero) {
    using T = decltype(zero);
    T* dx = dlogits.data<T>();
    const T* g = dloss.data<T>();
    const T* ls = lse.data<T>();
    const T* x = logits.data<T>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n = 0; n < N; ++n) {
      T* drow = dx + n * C;
      const T* row = x + n * C;
      if (tgt[n] == ignore_index) {
        for (int64_t c = 0; c < C; ++c) drow[c] = T(0);
        continue;
      }
      const double gn = g[n * dloss_step] * scale;
      for (int64_t c = 0; c < C; ++c) {
        const double q = (c == tgt[n] ? 1 - eps : 0) + eps / C;  // smoothed one-hot target
        drow[c] = static_cast<T>(gn * (std::exp(row[c] - ls[n]) - q));
      }
    }
  });
}

}  // namespace tg
