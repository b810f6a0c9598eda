#include "core/tensor.h"

#include <atomic>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/tape.h"

namespace tg {

int64_t next_tensor_id() {
  static std::atomic<int64_t> counter{0};
  return ++counter;
}

const TensorImpl& Tensor::checked() const {
  if (!impl_) throw Error("tensor", "use of an undefined tensor (default-constructed Tensor)");
  return *impl_;
}

int64_t Tensor::size(int64_t d) const { return shape()[wrap_dim(d, dim(), "size", shape())]; }

bool Tensor::is_contiguous() const {
  int64_t expected = 1;
  for (size_t i = shape().size(); i-- > 0;) {
    if (shape()[i] != 1 && strides()[i] != expected) return false;
    expected *= shape()[i];
  }
  return true;
}

Tensor& Tensor::set_name(std::string name) {
  checked();
  impl_->name = std::move(name);
  return *this;
}

std::string Tensor::describe() const {
  if (!impl_) return "undefined";
  std::string label = impl_->name.empty() ? "" : impl_->name + " ";
  return fmt::format("{}{} {}", label, shape_str(shape()), dtype_name(dtype()));
}

void* Tensor::raw_data() const {
  return static_cast<char*>(storage()->data()) + offset() * element_size(dtype());
}

template <class T> T* Tensor::data() const {
  if (dtype_of<T>() != dtype())
    throw Error("data", fmt::format("requested {} pointer of a {} tensor", dtype_name(dtype_of<T>()),
                                    dtype_name(dtype())));
  return static_cast<T*>(raw_data());
}
template float* Tensor::data<float>() const;
template double* Tensor::data<double>() const;
template int64_t* Tensor::data<int64_t>() const;
template bool* Tensor::data<bool>() const;

double Tensor::item() const {
  if (numel() != 1)
    throw Error("item", fmt::format("only one-element tensors convert to a number, got shape {}",
                                    shape_str(shape())));
  Tensor host = to_device_copy(*this, kCPU);
  switch (dtype()) {
    case DType::f32: return *host.data<float>();
    case DType::f64: return *host.data<double>();
    case DType::i64: return static_cast<double>(*host.data<int64_t>());
    case DType::b8: return *host.data<bool>() ? 1.0 : 0.0;
  }
  return 0;
}

template <class T> std::vector<T> Tensor::to_vector() const {
  Tensor host = contiguous_copy(to_device_copy(*this, kCPU));
  const T* p = host.data<T>();
  return std::vector<T>(p, p + host.numel());
}
template std::vector<float> Tensor::to_vector<float>() const;
template std::vector<double> Tensor::to_vector<double>() const;
template std::vector<int64_t> Tensor::to_vector<int64_t>() const;
template std::vector<bool> Tensor::to_vector<bool>() const;

Tensor& Tensor::requires_grad_(bool on) {
  if (on && !is_floating(dtype()))
    throw Error("requires_grad_", fmt::format("only floating tensors can require grad, got {}",
                                              describe()));
  if (!is_leaf())
    throw Error("requires_grad_", fmt::format("{} is the output of tape entry '{}', not a leaf; "
                                              "use detach() to make a new leaf", describe(), producer()->op));
  impl_->requires_grad = on;
  return *this;
}

Tensor Tensor::grad() const { return checked().grad ? Tensor(impl_->grad) : Tensor(); }

void Tensor::zero_grad() { checked(), impl_->grad.reset(); }

Tensor Tensor::detach() const { return make_view(*this, shape(), strides(), offset()); }

Tensor make_view(const Tensor& base, Shape shape, Shape strides, int64_t offset) {
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = base.storage();
  impl->shape = std::move(shape);
  impl->strides = std::move(strides);
  impl->offset = offset;
  impl->dtype = base.dtype();
  impl->id = next_tensor_id();
  return Tensor(std::move(impl));
}

void check_defined(const Tensor& t, const char* op, const char* arg) {
  if (!t.defined()) throw Error(op, fmt::format("argument '{}' is an undefined tensor", arg));
}

void check_floating(const Tensor& t, const char* op, const char* arg) {
  check_defined(t, op, arg);
  if (!is_floating(t.dtype()))
    throw Error(op, fmt::format("argument '{}' must be float32 or float64, got {} {}", arg,
                                dtype_name(t.dtype()), shape_str(t.shape())));
}

void check_same_dtype(const Tensor& a, const Tensor& b, const char* op) {
  if (a.dtype() != b.dtype())
    throw Error(op, fmt::format("dtypes differ: {} {} vs {} {} (convert one with tg::to)",
                                shape_str(a.shape()), dtype_name(a.dtype()), shape_str(b.shape()),
                                dtype_name(b.dtype())));
}

void check_same_device(const Tensor& a, const Tensor& b, const char* op) {
  if (a.device() != b.device())
    throw Error(op, fmt::format("tensors are on different devices: {} on {} and {} on {}",
                                shape_str(a.shape()), a.device().str(), shape_str(b.shape()),
                                b.device().str()));
}

}  // namespace tg
