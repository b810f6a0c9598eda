#include <algorithm>
#include <cmath>
#include <type_traits>
#include <utility>
#include <vector>

#include <omp.h>

#include "core/dispatch.h"
#include "core/factories.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/layer_norm/layer_norm.h"

namespace tg {

namespace {

// float32 rows: float arithmetic in loops the compiler vectorises (two passes, as below),
// kRowGroup rows at once.

// out = (x - mean) * rstd * w + b (= writes), mean and rstd (= writes) for Rows rows; out, x
// (Rows, C), mean, rstd (Rows). w, b may be null.
template <int Rows>
[[gnu::always_inline]] inline void layer_norm_rows(float* out, float* mean, float* rstd, const float* x,
                                                   const float* w, const float* b, int64_t C, float eps) {
  float sum[1][Rows], var_sum[1][Rows], m[Rows], rstds[Rows];
  sum_rows<Rows>(C, sum, [&](int r, int64_t c) { return x[r * C + c]; });
  for (int r = 0; r < Rows; ++r) m[r] = sum[0][r] / static_cast<float>(C);
  sum_rows<Rows>(C, var_sum, [&](int r, int64_t c) { return (x[r * C + c] - m[r]) * (x[r * C + c] - m[r]); });
  // The rows' divisions and square roots side by side (in one vector where they vectorise):
  // correctly rounded either way, so the same bits as one row at a time.
  for (int r = 0; r < Rows; ++r) rstds[r] = 1 / std::sqrt(var_sum[0][r] / static_cast<float>(C) + eps);
  for (int r = 0; r < Rows; ++r) {
    const float* xr = x + r * C;
    float* o = out + r * C;
    const float mr = m[r], rs = rstds[r];
    if (w && b) {
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) o[c] = (xr[c] - mr) * rs * w[c] + b[c];
    } else {
#pragma omp simd
      for (int64_t c = 0; c < C; ++c) o[c] = (xr[c] - mr) * rs * (w ? w[c] : 1.0f) + (b ? b[c] : 0.0f);
    }
    mean[r] = mr;
    rstd[r] = rs;
  }
}

// layer_norm_rows over `rows` rows, kRowGroup at a time.
TG_VEC_CLONES void layer_norm_rows_f32(float* out, float* mean, float* rstd, const float* x, const float* w,
                                       const float* b, int64_t rows, int64_t C, float eps) {
  int64_t n = 0;
  for (; n + kRowGroup <= rows; n += kRowGroup)
    layer_norm_rows<kRowGroup>(out + n * C, mean + n, rstd + n, x + n * C, w, b, C, eps);
  for (; n < rows; ++n) layer_norm_rows<1>(out + n * C, mean + n, rstd + n, x + n * C, w, b, C, eps);
}

// Element c of a row's share of the column sums: dweight_part += g * norm, dbias_part += g (float32:
// a block's partial sums, row after row).
[[gnu::always_inline]] inline void add_param_grads(float* dweight_part, float* dbias_part, const float* g,
                                                   const float* x, float m, float r, int64_t c) {
  dweight_part[c] += g[c] * (x[c] - m) * r;
  dbias_part[c] += g[c];
}

// dx = rstd * (dnorm - mean_c(dnorm) - norm * mean_c(dnorm * norm)), dnorm = g * w (= writes) for
// one row (taking four at a time is slower here); dx, g, x (C). w may be null. Where dweight_part
// is not null, the row's add_param_grads too, in the loop that writes dx (one pass fewer over g
// and x).
TG_VEC_CLONES void layer_norm_backward_row_f32(float* dx, float* dweight_part, float* dbias_part, const float* g,
                                               const float* x, const float* w, int64_t C, float m, float r) {
  float sums[2][1];  // sum_c dnorm, sum_c dnorm * norm
  if (w)
    sum_rows<1>(
        C, sums, [&](int, int64_t c) { return g[c] * w[c]; },
        [&](int, int64_t c) { return g[c] * w[c] * (x[c] - m) * r; });
  else
    sum_rows<1>(C, sums, [&](int, int64_t c) { return g[c]; }, [&](int, int64_t c) { return g[c] * (x[c] - m) * r; });
  const float dnorm_mean = sums[0][0] / static_cast<float>(C), dnorm_norm_mean = sums[1][0] / static_cast<float>(C);
  auto write = [&](auto weighted, auto with_parts) {
#pragma omp simd
    for (int64_t c = 0; c < C; ++c) {
      float dnorm = g[c];
      if constexpr (decltype(weighted)::value) dnorm = g[c] * w[c];
      if constexpr (decltype(with_parts)::value) add_param_grads(dweight_part, dbias_part, g, x, m, r, c);
      dx[c] = r * (dnorm - dnorm_mean - (x[c] - m) * r * dnorm_norm_mean);
    }
  };
  if (w && dweight_part)
    write(std::true_type{}, std::true_type{});
  else if (w)
    write(std::true_type{}, std::false_type{});
  else if (dweight_part)
    write(std::false_type{}, std::true_type{});
  else
    write(std::false_type{}, std::false_type{});
}

// add_param_grads along one row, where dx is not wanted.
TG_VEC_CLONES void layer_norm_param_grads_row_f32(float* dweight_part, float* dbias_part, const float* g,
                                                  const float* x, int64_t C, float m, float r) {
#pragma omp simd
  for (int64_t c = 0; c < C; ++c) add_param_grads(dweight_part, dbias_part, g, x, m, r, c);
}

constexpr int64_t kBlockRows = 32;  // float32 dweight/dbias: rows per partial sum

// dst[0..n) += src[0..n): a row of dx, made in a scratch row, added to the gradient gathered so
// far. Its own loop through memory, so the compiler cannot contract dx's last product and the
// sum into one fused multiply-add: the bits are those of writing dx and adding it afterwards.
template <class T>
[[gnu::noinline]] void add_row(T* dst, const T* src, int64_t n) {
#pragma omp simd
  for (int64_t c = 0; c < n; ++c) dst[c] += src[c];
}

// Where a thread writes row n of dx: into d, or, adding (scratch != null), into its scratch row
// (C elements per thread), added to d by add_row.
template <class T>
struct DxRows {
  T* d;
  T* scratch;
  int64_t C;
  T* row(int64_t n) const { return scratch ? scratch + omp_get_thread_num() * C : d + n * C; }
  void finish(int64_t n, const T* row) const {
    if (scratch) add_row(d + n * C, row, C);
  }
};

// The same in double arithmetic (the float64 reference): dx one row per iteration, then the
// column sums with each thread owning a block of columns and adding the rows in order 0..N-1
// (race free, independent of the thread count).
template <class T>
void backward_rows_reference(const DxRows<T>& d, std::vector<double>& dw, std::vector<double>& db, const T* g,
                             const T* x, const T* w, const T* mean, const T* rstd, int64_t N, int64_t C) {
  const bool parallel = N * C > kParallelGrain;
  if (d.d) {  // dx = rstd * (dnorm - mean_c(dnorm) - norm * mean_c(dnorm * norm))
#pragma omp parallel for if (parallel)
    for (int64_t n = 0; n < N; ++n) {
      const T *xr = x + n * C, *gr = g + n * C;
      const double m = mean[n], r = rstd[n];
      double dnorm_mean = 0, dnorm_norm_mean = 0;
      for (int64_t c = 0; c < C; ++c) {
        const double dnorm = gr[c] * (w ? w[c] : T(1));
        dnorm_mean += dnorm;
        dnorm_norm_mean += dnorm * (xr[c] - m) * r;
      }
      dnorm_mean /= static_cast<double>(C);
      dnorm_norm_mean /= static_cast<double>(C);
      T* row = d.row(n);
      for (int64_t c = 0; c < C; ++c) {
        const double dnorm = gr[c] * (w ? w[c] : T(1)), norm = (xr[c] - m) * r;
        row[c] = static_cast<T>(r * (dnorm - dnorm_mean - norm * dnorm_norm_mean));
      }
      d.finish(n, row);
    }
  }
  if (dw.empty()) return;
#pragma omp parallel if (parallel)
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t c0 = C * t / threads, c1 = C * (t + 1) / threads;
    for (int64_t n = 0; n < N; ++n) {
      const T *xr = x + n * C, *gr = g + n * C;
      const double m = mean[n], r = rstd[n];
      for (int64_t c = c0; c < c1; ++c) {
        dw[c] += gr[c] * (xr[c] - m) * r;
        db[c] += gr[c];
      }
    }
  }
}

// layer_norm_backward_cpu for the dtypes other than float32 (backward_rows_reference).
void layer_norm_backward_reference(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                                   const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                                   int64_t N, int64_t C, bool add_dx) {
  const Tensor scratch = dx.defined() && add_dx ? empty({omp_get_max_threads(), C}, dx.dtype()) : Tensor();
  dispatch_floating(dout.dtype(), "layer_norm", [&](auto zero) {
    using T = decltype(zero);
    const T* w = weight.defined() ? weight.data<T>() : nullptr;
    const DxRows<T> d{dx.defined() ? dx.data<T>() : nullptr, scratch.defined() ? scratch.data<T>() : nullptr, C};
    std::vector<double> dw, db;  // the column sums (C each), when dweight or dbias is wanted
    if (dweight.defined() || dbias.defined()) dw.assign(C, 0.0), db.assign(C, 0.0);
    backward_rows_reference(d, dw, db, dout.data<T>(), x.data<T>(), w, mean.data<T>(), rstd.data<T>(), N, C);
    T* dw_out = dweight.defined() ? dweight.data<T>() : nullptr;
    T* db_out = dbias.defined() ? dbias.data<T>() : nullptr;
    for (int64_t c = 0; c < C; ++c) {
      if (dw_out) dw_out[c] = static_cast<T>(dw[c]);
      if (db_out) db_out[c] = static_cast<T>(db[c]);
    }
  });
}

}  // namespace

void layer_norm_forward_cpu(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                            const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps,
                            const LayerNormFusion& fused) {
  // out, x (N,C), mean/rstd (N), weight/bias (C) or none
  if (x.dtype() == kF32) {
    const float* inp = x.data<float>();
    const float* w = weight.defined() ? weight.data<float>() : nullptr;
    const float* b = bias.defined() ? bias.data<float>() : nullptr;
    float *o = out.data<float>(), *mean_p = mean.data<float>(), *rstd_p = rstd.data<float>();
#pragma omp parallel if (N * C > kParallelGrain)
    {
      if (fused.before) {
        fused.before();
#pragma omp barrier
      }
      layer_norm_forward_part_f32(o, mean_p, rstd_p, inp, w, b, N, C, static_cast<float>(eps), omp_get_thread_num(),
                                  omp_get_num_threads());
    }
    return;
  }
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
                             int64_t N, int64_t C, bool add_dx, const LayerNormFusion& fused) {
  // dx, dout, x (N,C), mean/rstd (N), dweight/dbias/weight (C) or none
  if (dout.dtype() == kF32) {  // x is undefined where fused.x_row makes it
    const LayerNormBackwardTeam team(dx, dweight, dbias, mean, rstd, dout, x, weight, N, C, add_dx, fused);
#pragma omp parallel if (N * C > kParallelGrain)
    team.run(omp_get_thread_num(), omp_get_num_threads());
    team.finish();
  } else {
    layer_norm_backward_reference(dx, dweight, dbias, mean, rstd, dout, x, weight, N, C, add_dx);
  }
  if (add_dx) dx.storage()->bump_version();
}

void layer_norm_forward_part_f32(float* out, float* mean, float* rstd, const float* x, const float* w, const float* b,
                                 int64_t N, int64_t C, float eps, int thread, int threads) {
  // groups of kRowGroup rows from row 0, as the whole kernel takes them: a thread's share of them
  const int64_t groups = (N + kRowGroup - 1) / kRowGroup;
  const int64_t first = groups * thread / threads * kRowGroup, last = groups * (thread + 1) / threads * kRowGroup;
  for (int64_t n = first; n < std::min(N, last); n += kRowGroup)
    layer_norm_rows_f32(out + n * C, mean + n, rstd + n, x + n * C, w, b, std::min<int64_t>(kRowGroup, N - n), C, eps);
}

// Backward over the rows, float32: dx (where wanted) and the column sums dweight = sum_n g * norm
// and dbias = sum_n g (where either is wanted), in one pass over blocks of kBlockRows rows fixed
// by N: each block writes its rows of dx and its partial sums (in row order); finish() adds the
// partial sums in block order, in double, so the result does not depend on the thread count.
// With a fused op's x_row, row n of x is made into the thread's scratch row instead of read; its
// dx_row follows each row of dx.
LayerNormBackwardTeam::LayerNormBackwardTeam(const Tensor& dx, const Tensor& dweight, const Tensor& dbias,
                                             const Tensor& mean, const Tensor& rstd, const Tensor& dout,
                                             const Tensor& x, const Tensor& weight, int64_t N, int64_t C, bool add_dx,
                                             LayerNormFusion fused)
    : dx_(dx), dweight_(dweight), dbias_(dbias), dout_(dout), x_(x), weight_(weight), mean_(mean), rstd_(rstd), N_(N),
      C_(C), fused_(std::move(fused)) {
  const int64_t threads = omp_get_max_threads();  // the most a team of this program has
  if (dx.defined() && add_dx) dx_scratch_ = empty({threads, C});
  if (fused_.x_row) x_rows_ = empty({threads, C});
  if (dweight.defined() || dbias.defined()) partial_ = empty({(N + kBlockRows - 1) / kBlockRows, 2, C});
}

void LayerNormBackwardTeam::run(int thread, int threads) const {
  const int64_t N = N_, C = C_, blocks = (N + kBlockRows - 1) / kBlockRows;
  const float *g = dout_.data<float>(), *mean = mean_.data<float>(), *rstd = rstd_.data<float>();
  const float* x = x_.defined() ? x_.data<float>() : nullptr;
  const float* w = weight_.defined() ? weight_.data<float>() : nullptr;
  float* dx = dx_.defined() ? dx_.data<float>() : nullptr;
  float* partial = partial_.defined() ? partial_.data<float>() : nullptr;
  float* dx_scratch = dx_scratch_.defined() ? dx_scratch_.data<float>() + thread * C : nullptr;
  float* made = x_rows_.defined() ? x_rows_.data<float>() + thread * C : nullptr;
  for (int64_t block = blocks * thread / threads; block < blocks * (thread + 1) / threads; ++block) {
    float* dweight_part = partial ? partial + block * 2 * C : nullptr;
    float* dbias_part = partial ? dweight_part + C : nullptr;
    if (partial) std::fill(dweight_part, dweight_part + 2 * C, 0.0f);  // the block's sums start at +0
    for (int64_t n = block * kBlockRows; n < std::min(N, (block + 1) * kBlockRows); ++n) {
      if (made) fused_.x_row(n, made);
      const float* xr = made ? made : x + n * C;
      if (dx) {
        float* row = dx_scratch ? dx_scratch : dx + n * C;
        layer_norm_backward_row_f32(row, dweight_part, dbias_part, g + n * C, xr, w, C, mean[n], rstd[n]);
        if (dx_scratch) add_row(dx + n * C, row, C);
        if (fused_.dx_row) fused_.dx_row(n, dx + n * C);
      } else if (partial) {
        layer_norm_param_grads_row_f32(dweight_part, dbias_part, g + n * C, xr, C, mean[n], rstd[n]);
      }
    }
  }
}

// The blocks' partial sums added in block order, in double: one block's row of dweight's (then
// dbias's) partial sums at a time into all C sums, so that the additions vectorise.
void LayerNormBackwardTeam::finish() const {
  if (!partial_.defined()) return;
  const int64_t blocks = partial_.size(0), C = C_;
  const float* partial = partial_.data<float>();
  const Tensor sums_tensor = zeros({2 * C}, kF64);  // dweight's C sums, then dbias's
  double* sums = sums_tensor.data<double>();
  for (int64_t block = 0; block < blocks; ++block) {
    const float* part = partial + block * 2 * C;
#pragma omp simd
    for (int64_t c = 0; c < 2 * C; ++c) sums[c] += part[c];
  }
  const Tensor* outs[2] = {&dweight_, &dbias_};
  for (int k = 0; k < 2; ++k)
    if (outs[k]->defined()) std::copy(sums + k * C, sums + (k + 1) * C, outs[k]->data<float>());
}

}  // namespace tg
