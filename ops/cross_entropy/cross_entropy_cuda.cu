// The GPU twins of cross_entropy_cpu.cpp. Forward: one block of kThreads threads per row
// (max, sum of exp and sum of logits combined with block_max / block_sum in double). Backward:
// one thread per logit.
#include <cmath>

#include "core/cuda/cuda_check.h"
#include "core/dispatch.h"
#include "ops/common/block_reduce_cuda.cuh"
#include "ops/cross_entropy/cross_entropy.h"

namespace tg {

namespace {

// loss (N) = lse - (1 - eps) x_t - (eps / C) sum_c x_c, 0 where ignored; lse (N) (= writes both).
template <class T>
__global__ void cross_entropy_forward_kernel(T* loss, T* lse, const T* logits, const int64_t* target,
                                             int64_t ignore_index, double eps, int64_t N, int64_t C) {
  TG_BLOCK_PER_ROW_LOOP(n, N) {
    const T* row = logits + n * C;
    double m = -INFINITY;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) m = max_keep_nan(m, row[c]);
    m = block_max(m);
    double sumexp = 0, sumx = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) sumexp += exp(row[c] - m), sumx += row[c];
    sumexp = block_sum(sumexp);
    sumx = block_sum(sumx);
    if (threadIdx.x == 0) {
      const double lse_n = m + log(sumexp);
      const int64_t t = target[n];
      lse[n] = static_cast<T>(lse_n);
      loss[n] = t == ignore_index ? T(0) : static_cast<T>(lse_n - (1 - eps) * row[t] - eps / C * sumx);
    }
  }
}

// dlogits (N, C) = dloss[n] * scale * (exp(x - lse) - q) (= writes), 0 on ignored rows; dloss
// (N), or one element for every row (dloss_step 0).
template <class T>
__global__ void cross_entropy_backward_kernel(T* dlogits, const T* dloss, int64_t dloss_step, const T* lse,
                                              const T* logits, const int64_t* target, double scale,
                                              int64_t ignore_index, double eps, int64_t N, int64_t C) {
  TG_GRID_STRIDE_LOOP(i, N * C) {
    const int64_t n = i / C, c = i % C, t = target[n];
    if (t == ignore_index) {
      dlogits[i] = T(0);
      continue;
    }
    const double gn = dloss[n * dloss_step] * scale;
    const double q = (c == t ? 1 - eps : 0) + eps / C;  // smoothed one-hot target
    dlogits[i] = static_cast<T>(gn * (exp(logits[i] - lse[n]) - q));
  }
}

}  // namespace

void cross_entropy_forward_cuda(const Tensor& loss, const Tensor& lse, const Tensor& logits, const Tensor& target,
                                int64_t ignore_index, double label_smoothing) {
  // loss (N), lse (N), logits (N, C), target (N)
  const int64_t N = target.numel(), C = logits.size(-1);
  if (N == 0) return;
  dispatch_floating(logits.dtype(), "cross_entropy", [&](auto zero) {
    using T = decltype(zero);
    cross_entropy_forward_kernel<<<row_blocks(N), kThreads>>>(loss.data<T>(), lse.data<T>(), logits.data<T>(),
                                                              target.data<int64_t>(), ignore_index, label_smoothing,
                                                              N, C);
  });
  TG_CUDA_CHECK_LAUNCH("cross_entropy");
}

void cross_entropy_backward_cuda(const Tensor& dlogits, const Tensor& dloss, const Tensor& lse, const Tensor& logits,
                                 const Tensor& target, double scale, int64_t ignore_index, double label_smoothing) {
  // dlogits (N, C), dloss (N) or (), lse (N), logits (N, C), target (N)
  const int64_t N = target.numel(), C = logits.size(-1);
  if (N * C == 0) return;
  const int64_t dloss_step = dloss.numel() == 1 ? 0 : 1;
  dispatch_floating(logits.dtype(), "cross_entropy", [&](auto zero) {
    using T = decltype(zero);
    cross_entropy_backward_kernel<<<blocks_for(N * C), kThreads>>>(dlogits.data<T>(), dloss.data<T>(), dloss_step,
                                                                   lse.data<T>(), logits.data<T>(),
                                                                   target.data<int64_t>(), scale, ignore_index,
                                                                   label_smoothing, N, C);
  });
  TG_CUDA_CHECK_LAUNCH("cross_entropy");
}

}  // namespace tg
