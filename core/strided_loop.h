#pragma once
// strided_for_each: the one loop behind every CPU kernel that reads non-contiguous or
// broadcast tensors. It visits the elements of `shape` in row-major order and calls
// fn(offsets), where offsets[k] is that element's offset (in elements) within operand k,
// whose strides are strides[k] (0 on broadcast dims). OpenMP splits the index range, so fn
// must only write to the element it is given; serial_for_each is the one-thread version
// for loops that accumulate.
#include <array>
#include <cstdint>

#include <omp.h>

#include "core/shape.h"

namespace tg {

inline constexpr int64_t kParallelGrain = 1 << 15;  // below this many elements, one thread

// Visits the row-major elements [begin, end) of `shape`.
template <size_t N, class Fn>
void strided_range(const Shape& shape, const std::array<const Shape*, N>& strides, int64_t begin,
                   int64_t end, Fn&& fn) {
  if (begin >= end) return;  // also keeps a zero-size dim out of the % below
  const int rank = static_cast<int>(shape.size());
  std::array<int64_t, 16> index{};
  std::array<int64_t, N> off{};
  for (int64_t rest = begin, d = rank - 1; d >= 0; --d) {  // multi-index of element `begin`
    index[d] = rest % shape[d];
    rest /= shape[d];
    for (size_t k = 0; k < N; ++k) off[k] += index[d] * (*strides[k])[d];
  }
  for (int64_t i = begin; i < end; ++i) {
    fn(off);
    for (int d = rank - 1; d >= 0; --d) {  // odometer increment
      for (size_t k = 0; k < N; ++k) off[k] += (*strides[k])[d];
      if (++index[d] < shape[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= shape[d] * (*strides[k])[d];
      index[d] = 0;
    }
  }
}

template <size_t N, class Fn>
void serial_for_each(const Shape& shape, const std::array<const Shape*, N>& strides, Fn&& fn) {
  strided_range<N>(shape, strides, 0, numel(shape), fn);
}

// work_per_element: the elements fn reads for each one it is given (a reduction's row length),
// so that a few long rows are shared among the threads too.
template <size_t N, class Fn>
void strided_for_each(const Shape& shape, const std::array<const Shape*, N>& strides, Fn&& fn,
                      int64_t work_per_element = 1) {
  const int64_t n = numel(shape);
  if (n * work_per_element <= kParallelGrain || n < 2) return strided_range<N>(shape, strides, 0, n, fn);
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    strided_range<N>(shape, strides, n * t / threads, n * (t + 1) / threads, fn);
  }
}

}  // namespace tg
