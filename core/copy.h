#pragma once
// The data-moving kernels every other part builds on. None of them records on the tape.
#include "core/tensor.h"

namespace tg {

inline constexpr int kMaxRank = 16;  // the most dims a tensor may have

// dst = src element by element: same shape; any strides, dtypes and devices.
void copy_(const Tensor& dst, const Tensor& src);
// dst += src: same shape and floating dtype, same device.
void add_into_(const Tensor& dst, const Tensor& src);
// Every element of dst = value.
void fill_(const Tensor& dst, double value);
// False if any element is NaN or +-Inf (floating tensors; other dtypes are always finite).
// With allow_neg_inf, -Inf counts as fine: it is how masked scores are written.
bool all_finite(const Tensor& t, bool allow_neg_inf = false);

// A new contiguous tensor holding t's values (same dtype and device).
Tensor contiguous_copy(const Tensor& t);
// t itself when already on `device`, else a contiguous copy there.
Tensor to_device_copy(const Tensor& t, Device device);
// A new contiguous tensor with t's values converted to `dtype`.
Tensor to_dtype_copy(const Tensor& t, DType dtype);

}  // namespace tg
