#pragma once
// Tensors from typed values or raw buffers, on the host, row-major. All of them copy: the
// tensor owns its data, and the caller's buffer may be freed or reused as soon as they return.
// The values must fill the shape exactly ({} is the 0-d shape: one value).
//
//   std::vector<float> w = ...;             tg::tensor(w, {rows, cols})         float32
//   const int64_t* ids = ...;               tg::from_blob(ids, {n}, tg::kI64)   int64
//   std::vector<uint8_t> mask = ...;        tg::tensor_bool(mask, {T, T})       bool, nonzero = true
#include <cstdint>
#include <initializer_list>
#include <span>

#include "core/tensor.h"

namespace tg {

// numel(shape) elements of dtype, read from `data` in dtype's C++ representation (float,
// double, int64_t, bool; dtype_of<T>()). A bool buffer must hold only bytes 0 and 1. `data` may
// be null only for an empty shape (numel 0). Copies, then moves the copy to `device`.
Tensor from_blob(const void* data, const Shape& shape, DType dtype, Device device = kCPU);

// The dtype is the values' own (float32, float64, int64, bool): nothing is converted, unlike
// tensor(std::vector<double>, shape, dtype) in core/factories.h.
Tensor tensor(std::span<const float> values, const Shape& shape, Device device = kCPU);
Tensor tensor(std::span<const double> values, const Shape& shape, Device device = kCPU);
Tensor tensor(std::span<const int64_t> values, const Shape& shape, Device device = kCPU);
Tensor tensor(std::span<const bool> values, const Shape& shape, Device device = kCPU);

// Masks: bools, or bytes read as nonzero = true (numpy's astype(bool)).
Tensor tensor_bool(std::span<const bool> values, const Shape& shape, Device device = kCPU);
Tensor tensor_bool(std::span<const uint8_t> values, const Shape& shape, Device device = kCPU);
Tensor tensor_bool(std::initializer_list<bool> values, const Shape& shape, Device device = kCPU);

}  // namespace tg
