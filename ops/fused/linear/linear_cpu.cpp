#include <omp.h>

#include <algorithm>
#include <array>
#include <span>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/fused/linear/linear.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/matmul/matmul.h"
#include "ops/transpose/transpose.h"

namespace tg {

namespace {

// sums[0..width) += the sums over rows of g[r*ld + 0..width), each column's in row order.
template <class T>
[[gnu::always_inline]] inline void add_column_sums_body(T* sums, const T* g, int64_t rows, int64_t ld, int64_t width,
                                                        bool avx512) {
  add_rows_in_order(sums, width, rows, [&](int64_t r) { return g + r * ld; }, avx512);
}

TG_VEC_CLONES void add_column_sums(float* sums, const float* g, int64_t rows, int64_t ld, int64_t width) {
  add_column_sums_body(sums, g, rows, ld, width, runs_avx512_clones());
}
void add_column_sums(double* sums, const double* g, int64_t rows, int64_t ld, int64_t width) {
  add_column_sums_body(sums, g, rows, ld, width, false);
}

// dbias (n) = the column sums of grad (rows, n), each over every row in row order: the result does
// not depend on the thread count. `threads` threads share it in one of two ways.
struct BiasGradWork {
  Tensor dbias, grad;
};

// Beside the products, in pieces of rows (GemmPhase::chain): piece t adds thread t's rows, the
// rows its `before` work wrote, to the sums piece t - 1 left; piece 0 starts them at +0.
void bias_grad_rows(const void* context, int t, int threads) {
  const auto& w = *static_cast<const BiasGradWork*>(context);
  const int64_t rows = w.grad.size(0), n = w.grad.size(1);
  const int64_t r0 = rows * t / threads, r1 = rows * (t + 1) / threads;
  dispatch_floating(w.dbias.dtype(), "linear", [&](auto zero) {
    using T = decltype(zero);
    if (t == 0) std::fill_n(w.dbias.data<T>(), n, T(0));
    add_column_sums(w.dbias.data<T>(), w.grad.data<T>() + r0 * n, r1 - r0, n, n);
  });
}

// Alone, in blocks of columns: thread t sums its own columns over every row.
void bias_grad_columns(const BiasGradWork& w, int t, int threads) {
  const int64_t rows = w.grad.size(0), n = w.grad.size(1);
  const int64_t j0 = n * t / threads, j1 = n * (t + 1) / threads;
  dispatch_floating(w.dbias.dtype(), "linear", [&](auto zero) {
    using T = decltype(zero);
    std::fill(w.dbias.data<T>() + j0, w.dbias.data<T>() + j1, T(0));
    add_column_sums(w.dbias.data<T>() + j0, w.grad.data<T>() + j0, rows, n, j1 - j0);
  });
}

}  // namespace

void linear_backward_cpu(const Tensor& dx, bool add_dx, const Tensor& dweight, const Tensor& dbias, const Tensor& grad,
                         const Tensor& x, const Tensor& weight, const GemmSideWork* make_grad) {
  const BiasGradWork work{dbias, grad};
  std::array<GemmSideWork, 2> side;
  size_t sides = 0;
  if (make_grad) side[sides++] = *make_grad;
  if (dbias.defined()) side[sides++] = {bias_grad_rows, &work, GemmPhase::chain};
  std::array<MatmulProduct, 2> products;
  size_t count = 0;
  if (dweight.defined()) products[count++] = {dweight, transpose(grad, 0, 1), x, {}, false};  // grad^T @ x
  if (dx.defined()) products[count++] = {dx, grad, weight, {}, add_dx};                       // grad @ weight
  if (count > 0) return matmul_group_cpu(std::span(products.data(), count), std::span(side.data(), sides));
  if (make_grad) run_side_alone(std::span(make_grad, 1), {GemmPhase::before});
  if (!dbias.defined()) return;
  const int64_t rows = grad.size(0), n = grad.size(1);
  const int threads = rows * n > kParallelGrain ? std::min<int>(omp_get_max_threads(), int(n / 16) + 1) : 1;
#pragma omp parallel num_threads(threads)
  bias_grad_columns(work, omp_get_thread_num(), omp_get_num_threads());
}

}  // namespace tg
