#include "core/typed_tensor.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"

namespace tg {

namespace {

void check_count(size_t count, const Shape& shape, const char* op) {
  if (numel(shape) != static_cast<int64_t>(count))
    throw Error(op, fmt::format("{} values do not fill shape {} ({} elements){}", count, shape_str(shape),
                                numel(shape), shape.empty() ? "; {} is the 0-d shape: one value" : ""));
}

// An uninitialised host tensor, shape errors naming `op`.
Tensor host_empty(const Shape& shape, DType dtype, const char* op) {
  try {
    return empty(shape, dtype, kCPU);
  } catch (const Error& e) {
    throw Error(op, e.what());
  }
}

// The host tensor `host` (already filled) on `device`.
Tensor on(const Tensor& host, Device device) { return device.is_cpu() ? host : to_device_copy(host, device); }

// A copy of `count` values of T as a tensor of dtype_of<T>() and `shape`.
template <class T>
Tensor copied(const T* values, size_t count, const Shape& shape, Device device, const char* op) {
  check_count(count, shape, op);
  Tensor host = host_empty(shape, dtype_of<T>(), op);
  if (count > 0) std::memcpy(host.data<T>(), values, count * sizeof(T));
  return on(host, device);
}

}  // namespace

Tensor from_blob(const void* data, const Shape& shape, DType dtype, Device device) {
  Tensor host = host_empty(shape, dtype, "from_blob");
  const size_t bytes = static_cast<size_t>(host.numel()) * element_size(dtype);
  if (bytes == 0) return on(host, device);
  if (data == nullptr)
    throw Error("from_blob", fmt::format("data is null but shape {} has {} elements", shape_str(shape), host.numel()));
  std::memcpy(host.raw_data(), data, bytes);
  if (dtype == kBool) {
    const auto* b = static_cast<const uint8_t*>(data);
    const auto* bad = std::find_if(b, b + bytes, [](uint8_t v) { return v > 1; });
    if (bad != b + bytes)
      throw Error("from_blob", fmt::format("a bool buffer holds only bytes 0 and 1, but byte {} is {} (for "
                                           "bytes read as nonzero = true, use tensor_bool(std::span<const uint8_t>))",
                                           bad - b, *bad));
  }
  return on(host, device);
}

Tensor tensor(std::span<const float> values, const Shape& shape, Device device) {
  return copied(values.data(), values.size(), shape, device, "tensor");
}
Tensor tensor(std::span<const double> values, const Shape& shape, Device device) {
  return copied(values.data(), values.size(), shape, device, "tensor");
}
Tensor tensor(std::span<const int64_t> values, const Shape& shape, Device device) {
  return copied(values.data(), values.size(), shape, device, "tensor");
}
Tensor tensor(std::span<const bool> values, const Shape& shape, Device device) {
  return copied(values.data(), values.size(), shape, device, "tensor");
}

Tensor tensor_bool(std::span<const bool> values, const Shape& shape, Device device) {
  return copied(values.data(), values.size(), shape, device, "tensor_bool");
}
Tensor tensor_bool(std::span<const uint8_t> values, const Shape& shape, Device device) {
  check_count(values.size(), shape, "tensor_bool");
  Tensor host = host_empty(shape, kBool, "tensor_bool");
  std::transform(values.begin(), values.end(), host.data<bool>(), [](uint8_t v) { return v != 0; });
  return on(host, device);
}
Tensor tensor_bool(std::initializer_list<bool> values, const Shape& shape, Device device) {
  return tensor_bool(std::span<const bool>(values.begin(), values.size()), shape, device);
}

}  // namespace tg
