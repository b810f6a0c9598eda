#include "core/factories.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/dispatch.h"

namespace tg {

namespace {

// An uninitialised dense tensor; errors name `op`, the factory the user called.
Tensor empty_for(const Shape& shape, DType dtype, Device device, const char* op) {
  check_shape(shape, element_size(dtype), op);
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(numel(shape) * element_size(dtype), device, op);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  impl->id = next_tensor_id();
  return Tensor(std::move(impl));
}

// Builds a tensor on the host from a generator of element i, then moves it to `device`.
template <class Fill>
Tensor host_filled(const Shape& shape, DType dtype, Device device, const char* op, Fill fill) {
  Tensor host = empty_for(shape, dtype, kCPU, op);
  dispatch_all(dtype, [&](auto zero) {
    using T = decltype(zero);
    T* p = host.data<T>();
    const int64_t n = host.numel();
#pragma omp parallel for if (n > (1 << 15))
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(fill(i));
  });
  return to_device_copy(host, device);
}

}  // namespace

Tensor empty(const Shape& shape, DType dtype, Device device) { return empty_for(shape, dtype, device, "empty"); }

namespace {

Tensor full_for(const Shape& shape, double value, DType dtype, Device device, const char* op) {
  Tensor t = empty_for(shape, dtype, device, op);
  fill_(t, value);
  return t;
}

}  // namespace

Tensor full(const Shape& shape, double value, DType dtype, Device device) {
  return full_for(shape, value, dtype, device, "full");
}
Tensor zeros(const Shape& shape, DType dtype, Device device) { return full_for(shape, 0, dtype, device, "zeros"); }
Tensor ones(const Shape& shape, DType dtype, Device device) { return full_for(shape, 1, dtype, device, "ones"); }
Tensor zeros_like(const Tensor& t) { return zeros(t.shape(), t.dtype(), t.device()); }
Tensor ones_like(const Tensor& t) { return ones(t.shape(), t.dtype(), t.device()); }
Tensor full_like(const Tensor& t, double value) { return full(t.shape(), value, t.dtype(), t.device()); }
Tensor empty_like(const Tensor& t) { return empty(t.shape(), t.dtype(), t.device()); }

namespace {

// (shape) viewing `flat` (numel(shape) elements), dims laid out in the order of like's strides.
Tensor in_order_of(const Tensor& flat, const Shape& shape, const Tensor& like, const char* op) {
  if (static_cast<int64_t>(shape.size()) != like.dim())
    throw Error(op, fmt::format("shape {} must have the rank of like {}", shape_str(shape), shape_str(like.shape())));
  std::vector<int64_t> order(shape.size());  // dims, outermost first
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return like.strides()[a] > like.strides()[b]; });
  Shape strides(shape.size());
  int64_t stride = 1;
  for (auto d = order.rbegin(); d != order.rend(); ++d) {
    strides[*d] = stride;
    stride *= shape[*d];
  }
  return make_view(flat, shape, strides, 0);
}

}  // namespace

Tensor empty_in_order_of(const Shape& shape, const Tensor& like) {
  check_shape(shape, element_size(like.dtype()), "empty_in_order_of");
  return in_order_of(empty_for({numel(shape)}, like.dtype(), like.device(), "empty_in_order_of"), shape, like,
                     "empty_in_order_of");
}

Tensor arange(double start, double end, double step, DType dtype, Device device) {
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step) || step == 0)
    throw Error("arange", fmt::format("start={} end={} step={}: each must be finite and step nonzero", start,
                                      end, step));
  const double count = std::max(0.0, std::ceil((end - start) / step));
  if (!(count < 0x1p63))  // also catches an infinite (end - start) / step
    throw Error("arange", fmt::format("start={} end={} step={} makes {} elements, more than int64 holds", start,
                                      end, step, count));
  return host_filled({static_cast<int64_t>(count)}, dtype, device, "arange",
                     [&](int64_t i) { return start + step * static_cast<double>(i); });
}
Tensor arange(int64_t n, DType dtype, Device device) { return arange(0, static_cast<double>(n), 1, dtype, device); }

Tensor rand(const Shape& shape, DType dtype, Device device, Generator& gen, double low, double high) {
  check_shape(shape, element_size(dtype), "rand");
  check_floating(empty({}, dtype), "rand", "dtype");
  const uint64_t seed = gen.seed(), offset = gen.reserve(numel(shape), 4);
  return host_filled(shape, dtype, device, "rand", [&](int64_t i) {
    return low + (high - low) * (1.0 - uniform_at(seed, offset, static_cast<uint64_t>(i)));
  });
}

Tensor randn(const Shape& shape, DType dtype, Device device, Generator& gen, double mean, double std) {
  check_shape(shape, element_size(dtype), "randn");
  check_floating(empty({}, dtype), "randn", "dtype");
  const uint64_t seed = gen.seed(), offset = gen.reserve(numel(shape), 2);
  return host_filled(shape, dtype, device, "randn", [&](int64_t i) {
    return mean + std * normal_at(seed, offset, static_cast<uint64_t>(i));
  });
}

Tensor tensor(const std::vector<double>& values, const Shape& shape, DType dtype, Device device) {
  const Shape& s = shape;  // {}: 0-d
  check_shape(s, element_size(dtype), "tensor");
  if (numel(s) != static_cast<int64_t>(values.size()))
    throw Error("tensor", fmt::format("{} values do not fill shape {} ({} elements){}", values.size(),
                                      shape_str(s), numel(s), s.empty() ? "; leave the shape out for 1-D" : ""));
  return host_filled(s, dtype, device, "tensor", [&](int64_t i) { return values[i]; });
}
Tensor tensor(const std::vector<double>& values) { return tensor(values, {static_cast<int64_t>(values.size())}); }
Tensor tensor(std::initializer_list<double> values) { return tensor(std::vector<double>(values)); }
Tensor tensor(std::initializer_list<double> values, const Shape& shape, DType dtype, Device device) {
  return tensor(std::vector<double>(values), shape, dtype, device);
}
Tensor tensor_i64(const std::vector<int64_t>& values) {
  return tensor_i64(values, {static_cast<int64_t>(values.size())});
}
Tensor tensor_i64(const std::vector<int64_t>& values, const Shape& shape, Device device) {
  const Shape& s = shape;  // {}: 0-d
  check_shape(s, element_size(kI64), "tensor_i64");
  if (numel(s) != static_cast<int64_t>(values.size()))
    throw Error("tensor_i64", fmt::format("{} values do not fill shape {}", values.size(), shape_str(s)));
  return host_filled(s, kI64, device, "tensor_i64", [&](int64_t i) { return values[i]; });
}
Tensor tensor_bool(const std::vector<bool>& values) {
  return tensor_bool(values, {static_cast<int64_t>(values.size())});
}
Tensor tensor_bool(const std::vector<bool>& values, const Shape& shape, Device device) {
  const Shape& s = shape;  // {}: 0-d
  check_shape(s, element_size(kBool), "tensor_bool");
  if (numel(s) != static_cast<int64_t>(values.size()))
    throw Error("tensor_bool", fmt::format("{} values do not fill shape {}", values.size(), shape_str(s)));
  return host_filled(s, kBool, device, "tensor_bool", [&](int64_t i) { return values[i] ? 1 : 0; });
}
Tensor scalar(double value, DType dtype, Device device) { return full({}, value, dtype, device); }

}  // namespace tg
