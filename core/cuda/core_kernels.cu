// GPU versions of the core kernels (core/copy.h): one thread per element, grid-stride loops.
#include <cmath>

#include "core/cuda/core_kernels.h"
#include "core/cuda/cuda_check.h"
#include "core/cuda/cuda_runtime.h"
#include "core/cuda/strided_cuda.cuh"
#include "core/dispatch.h"

namespace tg {

namespace {

template <class D, class S>
__global__ void copy_kernel(D* out, StridedDesc out_desc, const S* in, StridedDesc in_desc, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) out[out_desc.at(i)] = static_cast<D>(in[in_desc.at(i)]);
}

template <class T>
__global__ void add_into_kernel(T* out, StridedDesc out_desc, const T* in, StridedDesc in_desc, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) out[out_desc.at(i)] += in[in_desc.at(i)];
}

template <class T>
__global__ void fill_kernel(T* out, StridedDesc desc, T value, int64_t n) {
  TG_GRID_STRIDE_LOOP(i, n) out[desc.at(i)] = value;
}

template <class T>
__global__ void nonfinite_kernel(const T* in, StridedDesc desc, int64_t n, bool allow_neg_inf, int* found) {
  TG_GRID_STRIDE_LOOP(i, n) {
    const T v = in[desc.at(i)];
    if (!isfinite(v) && !(allow_neg_inf && isinf(v) && v < 0)) *found = 1;
  }
}

}  // namespace

void copy_cuda(const Tensor& dst, const Tensor& src) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  dispatch_all(dst.dtype(), [&](auto dst_zero) {
    using D = decltype(dst_zero);
    dispatch_all(src.dtype(), [&](auto src_zero) {
      using S = decltype(src_zero);
      copy_kernel<<<blocks_for(n), kThreads>>>(static_cast<D*>(dst.raw_data()), StridedDesc(dst),
                                               static_cast<const S*>(src.raw_data()), StridedDesc(src), n);
    });
  });
  TG_CUDA_CHECK_LAUNCH("copy");
}

void add_into_cuda(const Tensor& dst, const Tensor& src) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  dispatch_floating(dst.dtype(), "add_into", [&](auto zero) {
    using T = decltype(zero);
    add_into_kernel<<<blocks_for(n), kThreads>>>(dst.data<T>(), StridedDesc(dst), src.data<T>(),
                                                 StridedDesc(src), n);
  });
  TG_CUDA_CHECK_LAUNCH("add_into");
}

void fill_cuda(const Tensor& dst, double value) {
  const int64_t n = dst.numel();
  if (n == 0) return;
  dispatch_all(dst.dtype(), [&](auto zero) {
    using T = decltype(zero);
    fill_kernel<<<blocks_for(n), kThreads>>>(static_cast<T*>(dst.raw_data()), StridedDesc(dst),
                                             static_cast<T>(value), n);
  });
  TG_CUDA_CHECK_LAUNCH("fill");
}

bool all_finite_cuda(const Tensor& t, bool allow_neg_inf) {
  const int64_t n = t.numel();
  if (n == 0) return true;
  int* found = static_cast<int*>(cuda_malloc(sizeof(int), t.device().index));  // from the cache
  TG_CUDA_CHECK(cudaMemset(found, 0, sizeof(int)), "all_finite");
  dispatch_floating(t.dtype(), "all_finite", [&](auto zero) {
    using T = decltype(zero);
    nonfinite_kernel<<<blocks_for(n), kThreads>>>(t.data<T>(), StridedDesc(t), n, allow_neg_inf, found);
  });
  TG_CUDA_CHECK_LAUNCH("all_finite");
  int host = 0;
  TG_CUDA_CHECK(cudaMemcpy(&host, found, sizeof(int), cudaMemcpyDeviceToHost), "all_finite");
  cuda_free(found, sizeof(int), t.device().index);
  return host == 0;
}

}  // namespace tg
