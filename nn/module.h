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
//
// Parameters and buffers are named like their state_dict entries: a module names each one as it
// registers it ("weight") and a parent prefixes its child's names as it registers the child
// ("q_proj.weight", then "self_attn.q_proj.weight", ...), so the tape, trace and DOT show
// layers.0.self_attn.q_proj.weight once the model is built (nothing is named per step). A child
// registered below an already registered module (a ModuleList filled later) gets its full name
// from the next registration above it or from named_parameters() / named_buffers(). A name the
// user gave (not a shorter form of the dotted one) is kept.
//
// A module's path is named the same way (path(): "layers.0.self_attn" once registered), and each
// forward opens a ModuleScope with it, so every tape entry records the module that made it.
//
// Forward hooks see what goes through a module's forward (PyTorch's register_forward_hook):
//
//   std::map<std::string, Tensor> weights;
//   for (auto& [name, m] : model.named_modules())
//     if (m->type() == "MultiHeadAttention")
//       m->register_forward_hook([&, name](const Module&, const TensorList&, const TensorList& out) {
//         weights[name] = out[1];  // (B,NH,T,S) on the composed path
//       });
//
// Each forward lists its inputs and outputs in its header's comment; a forward without hooks
// pays one empty() test.
//
// The composed ("teaching") path: set_composed(true) makes this module and all below it record
// every op separately, instead of the fused ops (ops/fused/: fused_attention, relu_dropout,
// dropout_add, dropout_add_layer_norm, linear) that compute the same in one tape entry each; the
// results agree to float tolerance.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/hooks.h"
#include "core/io/safetensors.h"  // NamedTensors: name -> tensor pairs in a stable order
#include "core/module_scope.h"
#include "core/rng.h"
#include "core/tensor.h"

namespace tg::nn {

class Module;
// fn(module, inputs, outputs), called at the end of module's forward (an undefined Tensor where
// an optional input or output is absent).
using ForwardHook = std::function<void(const Module& module, const TensorList& inputs, const TensorList& outputs)>;

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
  // Its dotted path below the outermost module it is registered in ("" for that one), as its
  // parameters' names begin: "encoder.layers.0.self_attn". Each forward opens a ModuleScope
  // with it (core/module_scope.h), so the tape's entries say which module made them.
  const ModulePath& path() const { return path_; }

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

  // The composed path (above) for this module and all below it; a child registered later takes
  // its parent's setting, as with train().
  void set_composed(bool on = true);
  bool is_composed() const { return composed_; }
  // Whether a fused op may run this module's work inside another's (Dropout's inside
  // LayerNorm::forward_of_dropout_add, say): the model is not composed and no forward hook
  // watches this module.
  bool fusable() const { return !is_composed() && !has_forward_hooks(); }

  void zero_grad();  // drops every parameter's accumulated gradient

  // ---- hooks -----------------------------------------------------------------------------
  // Runs after every forward of this module until the handle's remove(). Hooks observe: they
  // are kept beside the module's state (a const module takes them, as named_modules() gives).
  HookHandle register_forward_hook(ForwardHook hook) const;

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
  // For forward(): whether a hook waits, then the hooks (the lists are built only when one does).
  bool has_forward_hooks() const { return forward_hooks_ && !forward_hooks_->hooks.empty(); }
  void run_forward_hooks(const TensorList& inputs, const TensorList& outputs) const;

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
  void prefix_paths(const std::string& prefix);  // this module's path and those below it: prefix.path
  // The selected slots of this module and all below it (dotted names), in the orders above.
  void collect(Select select, const std::string& prefix, std::vector<Found>& out) const;
  std::vector<Found> collect(Select select) const;

  std::string type_;
  ModulePath path_ = std::make_shared<const std::string>();
  bool training_ = true;
  bool composed_ = false;
  struct ForwardHooks {
    std::vector<std::pair<uint64_t, ForwardHook>> hooks;  // {id for removal, hook}, in registration order
    uint64_t next_id = 0;
  };
  mutable std::shared_ptr<ForwardHooks> forward_hooks_;  // made by the first register_forward_hook
  std::vector<Slot> slots_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

}  // namespace tg::nn
