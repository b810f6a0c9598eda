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
  if (impl_->producer) impl_->producer->outputs[impl_->output_index].name = name;
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

std::string Tensor::why_no_grad() const {
  if (checked().grad) return "";
  if (!requires_grad())
    return fmt::format("{} does not require grad: no backward computes its gradient", describe());
  if (!is_leaf() && !retains_grad())
    return fmt::format("{} is not a leaf (tape entry #{} '{}' computed it): backward passes its gradient on "
                       "without keeping it; call retain_grad() on it before backward to keep it",
                       describe(), producer()->tape_position, producer()->op);
  return fmt::format("{} has no gradient yet: no backward has reached it (or zero_grad() dropped it)", describe());
}

namespace {
// The tensor's hooks, made on first use; a non-leaf's are shared with its producing entry,
// where backward looks for them.
TensorHooks& hooks_of(const std::shared_ptr<TensorImpl>& impl) {
  if (!impl->hooks) {
    impl->hooks = std::make_shared<TensorHooks>();
    impl->hooks->tensor = impl;
    if (impl->producer) {
      auto& per_output = impl->producer->output_hooks;
      per_output.resize(impl->producer->outputs.size());
      per_output[impl->output_index] = impl->hooks;
    }
  }
  return *impl->hooks;
}
}  // namespace

Tensor& Tensor::retain_grad() {
  if (!requires_grad())
    throw Error("retain_grad", fmt::format("{} does not require grad, so it has no gradient to retain", describe()));
  if (!is_leaf()) hooks_of(impl_).retain_grad = true;  // a leaf keeps its gradient anyway
  return *this;
}

bool Tensor::retains_grad() const { return !is_leaf() && checked().hooks && impl_->hooks->retain_grad; }

HookHandle Tensor::register_hook(GradHook fn) {
  if (!requires_grad())
    throw Error("register_hook", fmt::format("{} does not require grad: no backward would call the hook", describe()));
  if (!fn) throw Error("register_hook", "the hook is an empty function");
  TensorHooks& hooks = hooks_of(impl_);
  const uint64_t id = hooks.next_id++;
  hooks.hooks.emplace_back(id, std::move(fn));
  return HookHandle([weak = std::weak_ptr<TensorHooks>(impl_->hooks), id] {
    if (auto h = weak.lock()) std::erase_if(h->hooks, [id](const auto& hook) { return hook.first == id; });
  });
}

void Tensor::zero_grad() { checked(), impl_->grad.reset(); }

Tensor Tensor::detach() const { return make_view(*this, shape(), strides(), offset()); }

namespace {

// Throws unless every element of the view (shape, strides, offset) lies in `storage_elements`.
void check_view_extent(const Shape& shape, const Shape& strides, int64_t offset, int64_t storage_elements) {
  if (numel(shape) == 0) return;  // reaches nothing
  int64_t lo = offset, hi = offset;  // the lowest and highest element reached
  bool overflow = false;             // then the view reaches past int64, far outside any storage
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(shape[d] - 1, strides[d], &span);
    int64_t& end = span < 0 ? lo : hi;
    overflow |= __builtin_add_overflow(end, span, &end);
  }
  if (overflow || lo < 0 || hi >= storage_elements)
    throw Error("make_view", fmt::format("the view of shape {}, strides {} and offset {} reaches elements {}, "
                                         "outside the storage of {} elements (0..{})", shape_str(shape),
                                         shape_str(strides), offset,
                                         overflow ? "beyond int64's range" : fmt::format("{}..{}", lo, hi),
                                         storage_elements, storage_elements - 1));
}

}  // namespace

Tensor make_view(const Tensor& base, Shape shape, Shape strides, int64_t offset) {
  const int64_t element_bytes = static_cast<int64_t>(element_size(base.dtype()));
  check_shape(shape, element_bytes, "make_view");
  if (strides.size() != shape.size())
    throw Error("make_view", fmt::format("{} strides {} for the {} dims of shape {}", strides.size(),
                                         shape_str(strides), shape.size(), shape_str(shape)));
  check_view_extent(shape, strides, offset, static_cast<int64_t>(base.storage()->nbytes()) / element_bytes);
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
