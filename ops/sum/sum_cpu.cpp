#include <algorithm>

#include <omp.h>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/reduce_shape.h"
#include "ops/common/vec_math.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {
// True when the reduced dims are exactly the leading dims of x: keep is (1, ..., 1, x's other sizes).
bool reduces_leading_dims(const Shape& x, const Shape& keep) {
  size_t d = 0;
  while (d < x.size() && keep[d] == 1) ++d;
  for (; d < x.size(); ++d)
    if (keep[d] != x[d]) return false;
  return true;
}

constexpr int64_t kMaxBlockWidth = 512;  // columns of a block summed at a time

// out[0..w) = the sums over `rows` rows (width apart) of in[0..w), added in double (= writes);
// w <= kMaxBlockWidth.
template <class T>
[[gnu::always_inline]] inline void column_block_sum_body(T* out, const T* in, int64_t rows, int64_t width, int64_t w,
                                                         bool avx512) {
  double acc[kMaxBlockWidth] = {};
  add_rows_in_order(acc, w, rows, [&](int64_t r) { return in + r * width; }, avx512);
  for (int64_t c = 0; c < w; ++c) out[c] = static_cast<T>(acc[c]);
}
TG_VEC_CLONES void column_block_sum(float* out, const float* in, int64_t rows, int64_t width, int64_t w) {
  column_block_sum_body(out, in, rows, width, w, runs_avx512_clones());
}
void column_block_sum(double* out, const double* in, int64_t rows, int64_t width, int64_t w) {
  column_block_sum_body(out, in, rows, width, w, false);
}

// Column blocks, one per thread, each summed row after row (contiguous reads) into double
// accumulators that stay in registers; every column adds its rows in order 0..rows-1 whatever
// the thread count.
template <class T>
void leading_rows_sum(T* out, const T* in, int64_t rows, int64_t width) {
  const int64_t threads = omp_get_num_threads();
  const int64_t block =
      std::clamp<int64_t>(((width + threads - 1) / threads + 15) & ~int64_t{15}, 16, kMaxBlockWidth);
#pragma omp for nowait
  for (int64_t c0 = 0; c0 < width; c0 += block)
    column_block_sum(out + c0, in + c0, rows, width, std::min(block, width - c0));
}

}  // namespace

void sum_leading_rows_team(float* out, const float* in, int64_t rows, int64_t width) {
  leading_rows_sum(out, in, rows, width);
}
void sum_leading_rows_team(double* out, const double* in, int64_t rows, int64_t width) {
  leading_rows_sum(out, in, rows, width);
}

void sum_forward_cpu(const Tensor& out, const Tensor& x) {
  // x (d0..dn-1) any strides; out (keepdim shape) contiguous. Reduced dims: out 1, x not.
  const int rank = static_cast<int>(x.dim());
  const ReducedDims reduced = reduced_dims(x, out.shape());
  const int64_t n_out = out.numel(), n_reduced = numel(reduced.shape);
  dispatch_floating(x.dtype(), "sum", [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data<T>();
    T* o = out.data<T>();
    // Offset in x of the first reduced element for each output element (out has size 1 in
    // the reduced dims, so x's strides there are never stepped along).
    auto base_of = [&](int64_t flat) {
      int64_t off = 0;
      for (int d = rank - 1; d >= 0; --d) {
        off += (flat % out.shape()[d]) * x.strides()[d];
        flat /= out.shape()[d];
      }
      return off;
    };
    auto reduce_one = [&](int64_t base) {
      double acc = 0;  // double accumulation keeps float32 sums of many terms accurate
      serial_for_each<1>(reduced.shape, {&reduced.strides},
                         [&](const auto& off) { acc += in[base + off[0]]; });
      return static_cast<T>(acc);
    };
    if (n_out == 1 && x.is_contiguous()) {  // the whole tensor: a parallel reduction
      double acc = 0;
#pragma omp parallel for reduction(+ : acc) if (n_reduced > kParallelGrain)
      for (int64_t i = 0; i < n_reduced; ++i) acc += in[i];
      o[0] = static_cast<T>(acc);
      return;
    }
    if (x.is_contiguous() && reduces_leading_dims(x.shape(), out.shape())) {  // a bias gradient: (N, C) -> (1, C)
#pragma omp parallel if (n_out * n_reduced > kParallelGrain)
      sum_leading_rows_team(o, in, n_reduced, n_out);
      return;
    }
#pragma omp parallel for if (n_out * n_reduced > kParallelGrain)
    for (int64_t i = 0; i < n_out; ++i) o[i] = reduce_one(base_of(i));
  });
}

}  // namespace tg
