#pragma once
// The CPU loops behind every elementwise op. `out` is a fresh contiguous tensor of the
// broadcast shape; the inputs may have any strides and broadcast to it. The element
// function is a small lambda: add_forward_cpu is binary_kernel_cpu(out, a, b, std::plus).
// Contiguous operands take plain loops the compiler vectorises: both of out's shape, or one
// of out's shape and the other repeating along it (a bias (C) against (N, C), a scalar);
// anything else goes through strided_for_each.
#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "core/tensor.h"
#include "ops/common/vec_math.h"

namespace tg {

// True when t is contiguous and, broadcast to `out`, repeats every t.numel() elements of a
// contiguous out: t's shape without its leading 1s is a suffix of out's shape (a bias (C)
// against (N, C), a mask (T, T) against (B, NH, T, T), a scalar against anything).
inline bool repeats_along(const Tensor& t, const Shape& out) {
  if (!t.is_contiguous()) return false;
  size_t lead = 0;
  while (lead < t.shape().size() && t.shape()[lead] == 1) ++lead;
  const size_t rank = t.shape().size() - lead;
  if (rank > out.size()) return false;
  for (size_t d = 0; d < rank; ++d)
    if (t.shape()[lead + d] != out[out.size() - rank + d]) return false;
  return true;
}

namespace detail {
// The contiguous loops, each in the widest clone this CPU runs (TG_VEC_CLONES_EXACT: the bits of
// the baseline loop). An OpenMP region's own body is baseline code, so the regions below call them.
// o[i] = f(a[i], b[i]) for i < n (= writes).
template <class T, class F>
TG_VEC_CLONES_EXACT void map_pairs(T* o, const T* a, const T* b, int64_t n, F f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], b[i]);
}
// o[i] = f(a[i], r) for i < n (= writes).
template <class T, class F>
TG_VEC_CLONES_EXACT void map_with(T* o, const T* a, T r, int64_t n, F f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i], r);
}
// o[i] = f(a[i]) for i < n (= writes).
template <class T, class F>
TG_VEC_CLONES_EXACT void map_each(T* o, const T* a, int64_t n, F f) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = f(a[i]);
}
// o[r * inner + c] = f(full[r * inner + c], rep[c]) for r < rows, c < inner (= writes).
template <class T, class F>
TG_VEC_CLONES_EXACT void map_rows(T* o, const T* full, const T* rep, int64_t rows, int64_t inner, F f) {
  for (int64_t r = 0; r < rows; ++r) {
#pragma omp simd
    for (int64_t c = 0; c < inner; ++c) o[r * inner + c] = f(full[r * inner + c], rep[c]);
  }
}

// o[i] = f(full[i], rep[i % inner]) for i < n (= writes); full and o contiguous, n a multiple of inner.
template <class T, class F>
void repeat_loop_cpu(T* o, const T* full, const T* rep, int64_t n, int64_t inner, F f) {
  if (inner == 1)
    return for_chunks(n, kElementwiseChunk, kParallelGrain, [&](int64_t first, int64_t count) {
      map_with(o + first, full + first, rep[0], count, f);
    });
  for_row_chunks(n / inner, inner, kParallelGrain, [&](int64_t first, int64_t rows) {
    map_rows(o + first * inner, full + first * inner, rep, rows, inner, f);
  });
}
}  // namespace detail

// out = f(a, b) elementwise (= writes).
template <class F>
void binary_kernel_cpu(const Tensor& out, const Tensor& a, const Tensor& b, const char* op, F f) {
  dispatch_floating(out.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    T* o = out.data<T>();
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    const int64_t n = out.numel();
    const bool a_full = a.shape() == out.shape() && a.is_contiguous();
    const bool b_full = b.shape() == out.shape() && b.is_contiguous();
    if (a_full && b_full)
      return for_chunks(n, kElementwiseChunk, kParallelGrain, [&](int64_t first, int64_t count) {
        detail::map_pairs(o + first, x + first, y + first, count, f);
      });
    if (n > 0 && a_full && repeats_along(b, out.shape()))
      return detail::repeat_loop_cpu(o, x, y, n, b.numel(), f);
    if (n > 0 && b_full && repeats_along(a, out.shape()))
      return detail::repeat_loop_cpu(o, y, x, n, a.numel(), [&f](T v, T u) { return f(u, v); });
    Shape sa = broadcast_strides(a.shape(), a.strides(), out.shape());
    Shape sb = broadcast_strides(b.shape(), b.strides(), out.shape());
    strided_for_each<3>(out.shape(), {&out.strides(), &sa, &sb},
                        [&](const auto& off) { o[off[0]] = f(x[off[1]], y[off[2]]); });
  });
}

// out = f(x) elementwise (= writes); out has x's shape.
template <class F>
void unary_kernel_cpu(const Tensor& out, const Tensor& x, const char* op, F f) {
  dispatch_floating(out.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    T* o = out.data<T>();
    const T* in = x.data<T>();
    const int64_t n = out.numel();
    if (x.is_contiguous())
      return for_chunks(n, kElementwiseChunk, kParallelGrain, [&](int64_t first, int64_t count) {
        detail::map_each(o + first, in + first, count, f);
      });
    strided_for_each<2>(out.shape(), {&out.strides(), &x.strides()},
                        [&](const auto& off) { o[off[0]] = f(in[off[1]]); });
  });
}

}  // namespace tg
