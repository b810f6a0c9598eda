// The GPU twins of layer_norm_cpu.cpp. Forward and dx: one block of kThreads threads per row,
// the row's sums combined with block_sum (double). dweight/dbias: one thread per column, adding
// the rows in order 0..N-1 (no atomics, no races, the same result on every run).
#include <cmath>

#include "core/cuda/cuda_check.h"
#include "core/dispatch.h"
#include "ops/common/block_reduce_cuda.cuh"
#include "ops/layer_norm/layer_norm.h"

namespace tg {

namespace {

// out (N,C), mean/rstd (N) = writes; x (N,C), w/b (C) or null.
template <class T>
__global__ void layer_norm_forward_kernel(T* out, T* mean, T* rstd, const T* x, const T* w, const T* b, int64_t N,
                                          int64_t C, double eps) {
  TG_BLOCK_PER_ROW_LOOP(n, N) {
    const T* xr = x + n * C;
    // Two passes in double; mean and rstd rounded to T first, so that backward recomputes
    // exactly this norm (as on the CPU).
    double sum = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) sum += xr[c];
    const double m = static_cast<T>(block_sum(sum) / static_cast<double>(C));
    double v = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) v += (xr[c] - m) * (xr[c] - m);
    v = block_sum(v) / static_cast<double>(C);
    const double r = static_cast<T>(1 / sqrt(v + eps));
    T* orow = out + n * C;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
      const double norm = (xr[c] - m) * r;
      orow[c] = static_cast<T>(norm * (w ? w[c] : T(1)) + (b ? b[c] : T(0)));
    }
    if (threadIdx.x == 0) mean[n] = static_cast<T>(m), rstd[n] = static_cast<T>(r);
  }
}

// dx (N,C) = rstd * (dnorm - mean_c(dnorm) - norm * mean_c(dnorm * norm)) (= writes), one block per row.
template <class T>
__global__ void layer_norm_backward_dx_kernel(T* dx, const T* mean, const T* rstd, const T* dout, const T* x,
                                              const T* w, int64_t N, int64_t C) {
  TG_BLOCK_PER_ROW_LOOP(n, N) {
    const T *xr = x + n * C, *gr = dout + n * C;
    const double m = mean[n], r = rstd[n];
    double dnorm_sum = 0, dnorm_norm_sum = 0;
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
      const double dnorm = gr[c] * (w ? w[c] : T(1));
      dnorm_sum += dnorm;
      dnorm_norm_sum += dnorm * (xr[c] - m) * r;
    }
    const double dnorm_mean = block_sum(dnorm_sum) / static_cast<double>(C);
    const double dnorm_norm_mean = block_sum(dnorm_norm_sum) / static_cast<double>(C);
    for (int64_t c = threadIdx.x; c < C; c += blockDim.x) {
      const double dnorm = gr[c] * (w ? w[c] : T(1)), norm = (xr[c] - m) * r;
      dx[n * C + c] = static_cast<T>(r * (dnorm - dnorm_mean - norm * dnorm_norm_mean));
    }
  }
}

// dweight (C) = sum_n grad * norm, dbias (C) = sum_n grad (= writes; either may be null);
// one thread per column c.
template <class T>
__global__ void layer_norm_backward_params_kernel(T* dweight, T* dbias, const T* mean, const T* rstd, const T* dout,
                                                  const T* x, int64_t N, int64_t C) {
  TG_GRID_STRIDE_LOOP(c, C) {
    double dw = 0, db = 0;
    for (int64_t n = 0; n < N; ++n) {
      const T g = dout[n * C + c];
      dw += g * (x[n * C + c] - static_cast<double>(mean[n])) * rstd[n];
      db += g;
    }
    if (dweight) dweight[c] = static_cast<T>(dw);
    if (dbias) dbias[c] = static_cast<T>(db);
  }
}

template <class T>
const T* data_or_null(const Tensor& t) {
  return t.defined() ? t.data<T>() : nullptr;
}

}  // namespace

void layer_norm_forward_cuda(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                             const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps) {
  // out, x (N,C), mean/rstd (N), weight/bias (C) or none
  if (N == 0) return;
  dispatch_floating(x.dtype(), "layer_norm", [&](auto zero) {
    using T = decltype(zero);
    layer_norm_forward_kernel<<<row_blocks(N), kThreads>>>(out.data<T>(), mean.data<T>(), rstd.data<T>(), x.data<T>(),
                                                           data_or_null<T>(weight), data_or_null<T>(bias), N, C, eps);
  });
  TG_CUDA_CHECK_LAUNCH("layer_norm");
}

void layer_norm_backward_cuda(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                              const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                              int64_t N, int64_t C) {
  // dx, dout, x (N,C), mean/rstd (N), dweight/dbias/weight (C) or none
  dispatch_floating(x.dtype(), "layer_norm", [&](auto zero) {
    using T = decltype(zero);
    if (dx.defined() && N > 0) {
      layer_norm_backward_dx_kernel<<<row_blocks(N), kThreads>>>(dx.data<T>(), mean.data<T>(), rstd.data<T>(),
                                                                 dout.data<T>(), x.data<T>(), data_or_null<T>(weight),
                                                                 N, C);
      TG_CUDA_CHECK_LAUNCH("layer_norm");
    }
    if (dweight.defined() || dbias.defined()) {
      T* dw = dweight.defined() ? dweight.data<T>() : nullptr;
      T* db = dbias.defined() ? dbias.data<T>() : nullptr;
      layer_norm_backward_params_kernel<<<blocks_for(C), kThreads>>>(dw, db, mean.data<T>(), rstd.data<T>(),
                                                                     dout.data<T>(), x.data<T>(), N, C);
      TG_CUDA_CHECK_LAUNCH("layer_norm");
    }
  });
}

}  // namespace tg
