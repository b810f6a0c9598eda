#pragma once
// Module: the base of every layer (PyTorch's nn.Module).
//
// A module has named parameters (leaf tensors that require grad: what an optimizer trains),
// named buffers (state that is not trained, e.g. a fixed positional table) and named children,
// each kept in registration order. Names join with dots down the tree:
//   layers.0.self_attn.out_proj.weight
// Orders, as in PyTorch:
//   named_parameters()  this module's parameters, then each child's (depth first)
//   named_buffers()     the same for buffers
//   state_dict()        this module's parameters, then its persistent buffers, then each child's
//
// A subclass keeps each parameter in a Tensor member, registers that member once in its
// constructor, and then simply uses it; the registry points at the member, so the module and
// its registry can never disagree:
//
//   class Linear : public Module {
//    public:
//     Tensor weight;
//     Linear(int64_t in, int64_t out) : Module("Linear") {
//       register_parameter("weight", weight, empty({out, in}));
//       reset_parameters();  // runs reset_own_parameters below
//     }
//    protected:
//     void reset_own_parameters(Generator& gen) override { init::xavier_uniform_(weight, 1, gen); }
//   };
//
// Modules are neither copyable nor movable (the registry points into them): build them in place
// or hold them by std::shared_ptr, as children are.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/io/safetensors.h"  // NamedTensors: name -> tensor pairs in a stable order
#include "core/rng.h"
#include "core/tensor.h"

namespace tg::nn {

struct LoadResult {  // what a non-strict load_state_dict left out
  std::vector<std::string> missing;     // the module's entries the state did not have
  std::vector<std::string> unexpected;  // the state's entries the module does not have
};

class Module {
 public:
  explicit Module(std::string type) : type_(std::move(type)) {}
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& type() const { return type_; }  // "Linear": used in messages

  // ---- the tree --------------------------------------------------------------------------
  // This module (name "") and every module below it, depth first, in registration order.
  std::vector<std::pair<std::string, const Module*>> named_modules() const;
  // Parameters of this module and its children; a tensor registered twice (tied weights)
  // appears once, under its first name.
  NamedTensors named_parameters() const;
  std::vector<Tensor> parameters() const;
  NamedTensors named_buffers() const;  // persistent or not

  // ---- modes -----------------------------------------------------------------------------
  void train(bool on = true);  // this module and all below it (dropout is active in training)
  void eval() { train(false); }
  bool is_training() const { return training_; }

  void zero_grad();  // drops every parameter's accumulated gradient

  // ---- state -----------------------------------------------------------------------------
  // Parameters and persistent buffers by dotted name; each tensor shares the module's storage
  // (a detached view: no history, no grad).
  NamedTensors state_dict() const;
  // Copies each entry's values into the existing tensor of that name (copy_: the parameters keep
  // their storage, stay leaves and keep requires_grad; dtype and device are converted). Checks
  // everything before copying anything. Throws a tg::Error naming every wrong-shaped entry, and
  // with strict every missing and unexpected name too; without strict returns those names.
  LoadResult load_state_dict(const NamedTensors& state, bool strict = true);

  // Converts every floating parameter and buffer to `dtype` (or moves every one to `device`) in
  // place: each tensor keeps its identity (handles held elsewhere, e.g. by an optimizer, see the
  // change) and takes new storage; accumulated gradients are dropped.
  Module& to_(DType dtype);
  Module& to_(Device device);

  // Re-draws every parameter of this module and of the modules below it, each through its
  // module's reset_own_parameters (its single initialisation scheme, written with nn/init).
  void reset_parameters(Generator& gen = default_generator());

  // Runs fn with the named parameters/buffers bound to the given tensors instead of the module's
  // own, then restores them (torch.func.functional_call). The module computes with those tensors
  // themselves (not copies), so gradients flow into them: this is how gradcheck checks a module's
  // parameter gradients. Each name must exist and each tensor match its shape, dtype and device.
  Tensor functional_call(const NamedTensors& tensors, const std::function<Tensor()>& fn);

 protected:
  // `slot` becomes parameter `name`: a leaf requiring grad holding value's data.
  void register_parameter(std::string name, Tensor& slot, const Tensor& value);
  // `slot` becomes buffer `name`; a non-persistent buffer is left out of state_dict.
  void register_buffer(std::string name, Tensor& slot, const Tensor& value, bool persistent = true);
  template <class M> std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    add_child(std::move(name), module);
    return module;
  }
  // This module's own parameters (not its children's); the default has none.
  virtual void reset_own_parameters(Generator& /*gen*/) {}

 private:
  struct Slot {
    std::string name;
    Tensor* tensor;
    bool parameter;
    bool persistent;
  };
  enum class Select { parameters, buffers, state, all };
  struct Found {
    std::string name;
    Tensor* tensor;
  };

  void check_new_name(const std::string& name, const char* what) const;
  void add_child(std::string name, std::shared_ptr<Module> module);
  // The selected slots of this module and all below it (dotted names), in the orders above.
  void collect(Select select, const std::string& prefix, std::vector<Found>& out) const;
  std::vector<Found> collect(Select select) const;

  std::string type_;
  bool training_ = true;
  std::vector<Slot> slots_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

}  // namespace tg::nn
