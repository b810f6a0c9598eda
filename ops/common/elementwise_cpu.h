#pragma once
// The CPU loops behind every elementwise op. `out` is a fresh contiguous tensor of the
// broadcast shape; the inputs may have any strides and broadcast to it. The element
// function is a small lambda: add_forward_cpu is binary_kernel_cpu(out, a, b, std::plus).
#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "core/tensor.h"

namespace tg {

// out = f(a, b) elementwise (= writes).
template <class F>
void binary_kernel_cpu(const Tensor& out, const Tensor& a, const Tensor& b, const char* op, F f) {
  dispatch_floating(out.dtype(), op, [&](auto zero) {
    using T = decltype(zero);
    T* o = out.data<T>();
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    const int64_t n = out.numel();
    if (a.shape() == out.shape() && b.shape() == out.shape() && a.is_contiguous() && b.is_contiguous()) {
#pragma omp parallel for simd if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
      return;
    }
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
    if (x.is_contiguous()) {
#pragma omp parallel for simd if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) o[i] = f(in[i]);
      return;
    }
    strided_for_each<2>(out.shape(), {&out.strides(), &x.strides()},
                        [&](const auto& off) { o[off[0]] = f(in[off[1]]); });
  });
}

}  // namespace tg
