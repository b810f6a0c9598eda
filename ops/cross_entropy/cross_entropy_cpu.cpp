#include <algorithm>
#include <cmath>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/cross_entropy/cross_entropy.h"

namespace tg {

namespace {

// float32 rows: float arithmetic and exp_vec, so that the loops over the C classes vectorise.
// Returns lse = m + log(sum_c exp(x_c - m)) of row (C) and sets *sumx = sum_c x_c.
TG_VEC_CLONES float lse_row_f32(const float* row, int64_t C, float* sumx) {
  const float m = max_vec(row, C, -INFINITY);  // a NaN logit reaches lse through exp
  float sumexp = 0, sx = 0;
#pragma omp simd reduction(+ : sumexp, sx)
  for (int64_t c = 0; c < C; ++c) sumexp += exp_vec(row[c] - m), sx += row[c];
  *sumx = sx;
  return m + std::log(sumexp);
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
    for (int64_t n = 0; n < N; ++n) {
      const float* row = x + n * C;
      float sumx = 0;
      const float lse_n = lse_row_f32(row, C, &sumx);
      ls[n] = lse_n;
      l[n] = tgt[n] == ignore_index ? 0.0f : static_cast<float>(lse_n - (1 - eps) * row[tgt[n]] - eps / C * sumx);
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
