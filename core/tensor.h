#pragma once
// Tensor: a handle (shared pointer) to a strided view of a Storage.
//
//   shape    sizes of each dim, row-major           e.g. (B, T, C)
//   strides  elements to step per dim (0 = broadcast)
//   offset   first element's position in the storage, in elements
//
// Copying a Tensor copies the handle, never the data. Differentiable operations are free
// functions in ops/ (tg::matmul, tg::transpose, ...); this class holds what every tensor is
// and the autograd state of one tensor.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/dtype.h"
#include "core/error.h"
#include "core/hooks.h"
#include "core/shape.h"
#include "core/storage.h"

namespace tg {

struct Entry;  // a tape entry: core/tape.h

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  Shape strides;
  int64_t offset = 0;
  DType dtype = DType::f32;
  int64_t id = 0;  // unique per tensor (views included); the tape refers to tensors by id
  std::string name;

  // autograd
  bool requires_grad = false;
  std::shared_ptr<TensorImpl> grad;  // accumulated gradient (leaves only)
  std::shared_ptr<Entry> producer;   // tape entry that computed this tensor; null for leaves
  int output_index = 0;              // which output of `producer` this is
  std::shared_ptr<TensorHooks> hooks;  // retain_grad() and register_hook(); null for almost every tensor
  // Forward mode (core/forward_ad.h): the directional derivative carried beside the value while
  // tg::jvp runs its function; null otherwise.
  std::shared_ptr<TensorImpl> tangent;
};

int64_t next_tensor_id();

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  TensorImpl* impl() const { return impl_.get(); }
  const std::shared_ptr<TensorImpl>& impl_ptr() const { return impl_; }

  // ---- what the tensor is --------------------------------------------------------------
  const Shape& shape() const { return checked().shape; }
  const Shape& strides() const { return checked().strides; }
  int64_t offset() const { return checked().offset; }
  int64_t dim() const { return static_cast<int64_t>(shape().size()); }
  int64_t size(int64_t d) const;  // negative d counts from the end
  int64_t numel() const { return tg::numel(shape()); }
  DType dtype() const { return checked().dtype; }
  Device device() const { return checked().storage->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_contiguous() const;
  int64_t id() const { return checked().id; }
  const std::shared_ptr<Storage>& storage() const { return checked().storage; }
  const std::string& name() const { return checked().name; }
  // Names the tensor in printouts and on the tape: an op's output is named on its producer's
  // entry too (set before or after the op ran), and every entry it is an input of shows the name.
  Tensor& set_name(std::string name);
  std::string describe() const;  // "x (2,3) float32" for error messages and the tape

  // Pointer to the first element (offset applied); checks that T matches the dtype.
  template <class T> T* data() const;
  void* raw_data() const;

  // ---- values --------------------------------------------------------------------------
  double item() const;                              // one-element tensor, any dtype/device
  template <class T> std::vector<T> to_vector() const;  // row-major copy on the host

  // ---- autograd ------------------------------------------------------------------------
  bool requires_grad() const { return checked().requires_grad; }
  Tensor& requires_grad_(bool on = true);  // leaves only, floating dtypes only
  bool is_leaf() const { return checked().producer == nullptr; }
  // The accumulated gradient: of a leaf, or of a non-leaf that called retain_grad() before
  // backward. Undefined before a backward reaches it, and always for other non-leaf tensors (a
  // backward passes their gradient on without keeping it): why_no_grad() says which.
  Tensor grad() const;
  std::string why_no_grad() const;         // "" when grad() is defined, else the reason and the remedy
  void zero_grad();                        // drops the accumulated gradient
  // A non-leaf keeps its gradient in grad() from the next backward on (a leaf always does).
  Tensor& retain_grad();
  bool retains_grad() const;
  // fn(grad) runs in every backward that reaches this tensor and may return a replacement
  // gradient (core/hooks.h says when). The tensor must require grad.
  HookHandle register_hook(GradHook fn);
  Tensor detach() const;                   // same storage, no history, no grad
  const std::shared_ptr<Entry>& producer() const { return checked().producer; }

  // Runs the tape backward from this tensor (core/backward.cpp). grad_output defaults to 1
  // for a one-element tensor. Without retain_graph the entries' saved tensors are freed;
  // retain_graph defaults to create_graph. With create_graph the backward is itself recorded
  // on the tape (each entry's reference rule, core/tape.h), so the leaves' .grad() can be
  // differentiated again.
  void backward(const Tensor& grad_output = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;

 private:
  const TensorImpl& checked() const;
  std::shared_ptr<TensorImpl> impl_;
};

using TensorList = std::vector<Tensor>;

// A new tensor viewing `base`'s storage (no copy, no tape entry: ops/ record views). Checks
// the shape (check_shape), one stride per dim (any sign, 0 = broadcast) and that every element
// the view can reach, offset + sum of index * stride, lies inside the storage.
Tensor make_view(const Tensor& base, Shape shape, Shape strides, int64_t offset);

// Throws "<op>: <arg> is undefined" / "... expected floating dtype" etc.
void check_defined(const Tensor& t, const char* op, const char* arg);
void check_floating(const Tensor& t, const char* op, const char* arg);
void check_same_dtype(const Tensor& a, const Tensor& b, const char* op);
void check_same_device(const Tensor& a, const Tensor& b, const char* op);

}  // namespace tg
