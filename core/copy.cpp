#include "core/copy.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include <fmt/format.h>

#include "core/cuda/core_kernels.h"
#include "core/dispatch.h"
#include "core/factories.h"
#include "core/strided_loop.h"

namespace tg {

namespace {

void check_same_shape(const Tensor& dst, const Tensor& src, const char* op) {
  if (dst.shape() != src.shape())
    throw Error(op, fmt::format("shapes differ: dst {} vs src {}", shape_str(dst.shape()),
                                shape_str(src.shape())));
}

}  // namespace

void copy_(const Tensor& dst, const Tensor& src) {
  check_same_shape(dst, src, "copy");
  if (dst.device() != src.device()) {
    // Bytes cross devices contiguously, in src's dtype; strides and dtype are fixed up on dst.
    Tensor packed = src.is_contiguous() ? src : contiguous_copy(src);
    Tensor landed = empty(src.shape(), src.dtype(), dst.device());
    copy_bytes(landed.raw_data(), dst.device(), packed.raw_data(), src.device(),
               packed.numel() * element_size(src.dtype()));
    copy_(dst, landed);
  } else if (dst.is_cuda()) {
    copy_cuda(dst, src);
  } else {
    dispatch_all(dst.dtype(), [&](auto dst_zero) {
      using D = decltype(dst_zero);
      dispatch_all(src.dtype(), [&](auto src_zero) {
        using S = decltype(src_zero);
        D* out = static_cast<D*>(dst.raw_data());
        const S* in = static_cast<const S*>(src.raw_data());
        if (dst.is_contiguous() && src.is_contiguous()) {  // a plain loop (memcpy speed), no odometer
          const int64_t n = dst.numel();
#pragma omp parallel for simd if (n > kParallelGrain)
          for (int64_t i = 0; i < n; ++i) out[i] = static_cast<D>(in[i]);
          return;
        }
        strided_for_each<2>(dst.shape(), {&dst.strides(), &src.strides()},
                            [&](const auto& off) { out[off[0]] = static_cast<D>(in[off[1]]); });
      });
    });
  }
  dst.storage()->bump_version();
}

void add_into_(const Tensor& dst, const Tensor& src) {
  check_same_shape(dst, src, "add_into");
  check_same_dtype(dst, src, "add_into");
  check_same_device(dst, src, "add_into");
  if (dst.is_cuda()) {
    add_into_cuda(dst, src);
  } else {
    dispatch_floating(dst.dtype(), "add_into", [&](auto zero) {
      using T = decltype(zero);
      T* out = dst.data<T>();
      const T* in = src.data<T>();
      if (dst.is_contiguous() && src.is_contiguous()) {
        const int64_t n = dst.numel();
#pragma omp parallel for simd if (n > kParallelGrain)
        for (int64_t i = 0; i < n; ++i) out[i] += in[i];
        return;
      }
      strided_for_each<2>(dst.shape(), {&dst.strides(), &src.strides()},
                          [&](const auto& off) { out[off[0]] += in[off[1]]; });
    });
  }
  dst.storage()->bump_version();
}

void fill_(const Tensor& dst, double value) {
  if (dst.is_cuda()) {
    fill_cuda(dst, value);
  } else {
    dispatch_all(dst.dtype(), [&](auto zero) {
      using T = decltype(zero);
      T* out = static_cast<T*>(dst.raw_data());
      const T v = static_cast<T>(value);
      if (dst.is_contiguous()) {
        const int64_t n = dst.numel();
        if (n <= kParallelGrain) {  // no region at all: a false `if` clause still opens a team of one
          std::fill_n(out, n, v);
          return;
        }
#pragma omp parallel for simd
        for (int64_t i = 0; i < n; ++i) out[i] = v;
        return;
      }
      strided_for_each<1>(dst.shape(), {&dst.strides()}, [&](const auto& off) { out[off[0]] = v; });
    });
  }
  dst.storage()->bump_version();
}

bool all_finite(const Tensor& t, bool allow_neg_inf) {
  if (!is_floating(t.dtype())) return true;
  if (t.is_cuda()) return all_finite_cuda(t, allow_neg_inf);
  return dispatch_floating(t.dtype(), "all_finite", [&](auto zero) {
    using T = decltype(zero);
    const T* in = t.data<T>();
    std::atomic<bool> finite{true};
    strided_for_each<1>(t.shape(), {&t.strides()}, [&](const auto& off) {
      const T v = in[off[0]];
      if (!std::isfinite(v) && !(allow_neg_inf && v == -INFINITY)) finite.store(false, std::memory_order_relaxed);
    });
    return finite.load();
  });
}

Tensor contiguous_copy(const Tensor& t) {
  Tensor out = empty(t.shape(), t.dtype(), t.device());
  copy_(out, t);
  return out;
}

Tensor to_device_copy(const Tensor& t, Device device) {
  if (t.device() == device) return t;
  Tensor out = empty(t.shape(), t.dtype(), device);
  copy_(out, t);
  return out;
}

Tensor to_dtype_copy(const Tensor& t, DType dtype) {
  Tensor out = empty(t.shape(), dtype, t.device());
  copy_(out, t);
  return out;
}

}  // namespace tg
