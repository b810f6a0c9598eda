#include <cmath>
#include <vector>

#include <omp.h>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/layer_norm/layer_norm.h"

namespace tg {

void layer_norm_forward_cpu(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                            const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps) {
  // out, x (N,C), mean/rstd (N), weight/bias (C) or none
  dispatch_floating(x.dtype(), "layer_norm", [&](auto zero) {
    using T = decltype(zero);
    const T* inp = x.data<T>();
    const T* w = weight.defined() ? weight.data<T>() : nullptr;
    const T* b = bias.defined() ? bias.data<T>() : nullptr;
    T* o = out.data<T>();
    T* mean_p = mean.data<T>();
    T* rstd_p = rstd.data<T>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n = 0; n < N; ++n) {
      const T* xr = inp + n * C;
      // Two passes in double: no cancellation on nearly constant rows (E[x^2] - E[x]^2 has it).
      // mean and rstd are rounded to T first, so that backward recomputes exactly this norm.
      double sum = 0;
      for (int64_t c = 0; c < C; ++c) sum += xr[c];
      const double m = static_cast<T>(sum / static_cast<double>(C));
      double v = 0;
      for (int64_t c = 0; c < C; ++c) v += (xr[c] - m) * (xr[c] - m);
      v /= static_cast<double>(C);
      const double r = static_cast<T>(1 / std::sqrt(v + eps));
      T* orow = o + n * C;
      for (int64_t c = 0; c < C; ++c) {
        const double norm = (xr[c] - m) * r;
        orow[c] = static_cast<T>(norm * (w ? w[c] : T(1)) + (b ? b[c] : T(0)));
      }
      mean_p[n] = static_cast<T>(m);
      rstd_p[n] = static_cast<T>(r);
    }
  });
}

void layer_norm_backward_cpu(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                             const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                             int64_t N, int64_t C) {
  // dx, dout, x (N,C), mean/rstd (N), dweight/dbias/weight (C) or none
  dispatch_floating(x.dtype(), "layer_norm", [&](auto zero) {
    using T = decltype(zero);
    const T* inp = x.data<T>();
    const T* g = dout.data<T>();
    const T* mean_p = mean.data<T>();
    const T* rstd_p = rstd.data<T>();
    const T* w = weight.defined() ? weight.data<T>() : nullptr;
    const bool parallel = N * C > kParallelGrain;
    if (dx.defined()) {  // dx = rstd * (dnorm - mean_c(dnorm) - norm * mean_c(dnorm * norm)), one row per iteration
      T* d = dx.data<T>();
#pragma omp parallel for if (parallel)
      for (int64_t n = 0; n < N; ++n) {
        const T *xr = inp + n * C, *gr = g + n * C;
        const double m = mean_p[n], r = rstd_p[n];
        double dnorm_mean = 0, dnorm_norm_mean = 0;
        for (int64_t c = 0; c < C; ++c) {
          const double dnorm = gr[c] * (w ? w[c] : T(1));
          dnorm_mean += dnorm;
          dnorm_norm_mean += dnorm * (xr[c] - m) * r;
        }
        dnorm_mean /= static_cast<double>(C);
        dnorm_norm_mean /= static_cast<double>(C);
        for (int64_t c = 0; c < C; ++c) {
          const double dnorm = gr[c] * (w ? w[c] : T(1)), norm = (xr[c] - m) * r;
          d[n * C + c] = static_cast<T>(r * (dnorm - dnorm_mean - norm * dnorm_norm_mean));
        }
      }
    }
    if (!dweight.defined() && !dbias.defined()) return;
    // dweight = sum_n grad * norm, dbias = sum_n grad: each thread owns a block of columns and
    // adds the rows in order 0..N-1 (race free, independent of the thread count).
    std::vector<double> dw(C, 0.0), db(C, 0.0);
#pragma omp parallel if (parallel)
    {
      const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t c0 = C * t / threads, c1 = C * (t + 1) / threads;
      for (int64_t n = 0; n < N; ++n) {
        const T *xr = inp + n * C, *gr = g + n * C;
        const double m = mean_p[n], r = rstd_p[n];
        for (int64_t c = c0; c < c1; ++c) {
          dw[c] += gr[c] * (xr[c] - m) * r;
          db[c] += gr[c];
        }
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      if (dweight.defined()) dweight.data<T>()[c] = static_cast<T>(dw[c]);
      if (dbias.defined()) dbias.data<T>()[c] = static_cast<T>(db[c]);
    }
  });
}

}  // namespace tg
