#pragma once
// GPU versions of the core kernels in core/copy.h (core/cuda/core_kernels.cu); the
// no-CUDA build defines them as clear errors.
#include "core/tensor.h"

namespace tg {

void copy_cuda(const Tensor& dst, const Tensor& src);  // same device, any strides/dtypes
void add_into_cuda(const Tensor& dst, const Tensor& src);
void fill_cuda(const Tensor& dst, double value);
bool all_finite_cuda(const Tensor& t, bool allow_neg_inf);

}  // namespace tg
