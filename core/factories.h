#pragma once
// Making tensors. Every factory takes the shape first, then dtype (default float32), then
// device (default cpu). Random factories draw from a Generator (default: the global one).
#include <initializer_list>
#include <vector>

#include "core/rng.h"
#include "core/tensor.h"
#include "core/typed_tensor.h"

namespace tg {

Tensor empty(const Shape& shape, DType dtype = kF32, Device device = kCPU);  // uninitialised
Tensor zeros(const Shape& shape, DType dtype = kF32, Device device = kCPU);
Tensor ones(const Shape& shape, DType dtype = kF32, Device device = kCPU);
Tensor full(const Shape& shape, double value, DType dtype = kF32, Device device = kCPU);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
Tensor full_like(const Tensor& t, double value);
Tensor empty_like(const Tensor& t);
// Uninitialised, `shape` (of like's rank), dense, with its dims laid out in memory in the order
// of like's strides (ties in dim order): for a transposed view of a contiguous tensor, a tensor
// that transposes back to a contiguous one. Kernels that write rows through strides use it so
// that the views around them stay views (fused attention's outputs and gradients).
Tensor empty_in_order_of(const Shape& shape, const Tensor& like);

// start, start+step, ... < end (like Python's range); arange(n) = 0..n-1 as int64.
Tensor arange(double start, double end, double step = 1, DType dtype = kF32, Device device = kCPU);
Tensor arange(int64_t n, DType dtype = kI64, Device device = kCPU);

// Uniform in [low, high) and standard normal N(mean, std^2).
Tensor rand(const Shape& shape, DType dtype = kF32, Device device = kCPU,
            Generator& gen = default_generator(), double low = 0, double high = 1);
Tensor randn(const Shape& shape, DType dtype = kF32, Device device = kCPU,
             Generator& gen = default_generator(), double mean = 0, double std = 1);

// From values, row-major. Without a shape: 1-D, values.size() elements. With one, the values
// must fill it exactly; {} is the 0-d shape there, as everywhere else (one value). The values
// are converted to dtype. Typed spans, raw buffers and uint8 masks: core/typed_tensor.h.
Tensor tensor(const std::vector<double>& values);
Tensor tensor(const std::vector<double>& values, const Shape& shape, DType dtype = kF32, Device device = kCPU);
Tensor tensor(std::initializer_list<double> values);
Tensor tensor(std::initializer_list<double> values, const Shape& shape, DType dtype = kF32, Device device = kCPU);
Tensor tensor_i64(const std::vector<int64_t>& values);
Tensor tensor_i64(const std::vector<int64_t>& values, const Shape& shape, Device device = kCPU);
Tensor tensor_bool(const std::vector<bool>& values);
Tensor tensor_bool(const std::vector<bool>& values, const Shape& shape, Device device = kCPU);
Tensor scalar(double value, DType dtype = kF32, Device device = kCPU);  // shape ()

}  // namespace tg
