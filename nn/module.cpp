#include "nn/module.h"

#include <map>
#include <set>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/grad_mode.h"

namespace tg::nn {

namespace {

// t keeps its identity (id, name, requires_grad) and takes value's data; its gradient is dropped.
void replace_data(const Tensor& t, const Tensor& value) {
  TensorImpl& impl = *t.impl();
  impl.storage = value.storage();
  impl.shape = value.shape();
  impl.strides = value.strides();
  impl.offset = value.offset();
  impl.dtype = value.dtype();
  impl.grad.reset();
}

std::string join_names(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

// Names t `full` (its dotted name from some module down) when its name is a shorter form of it
// ("weight", "q_proj.weight" for "self_attn.q_proj.weight"); a name given otherwise is kept.
void name_tensor(const Tensor& t, const std::string& full) {
  const std::string& now = t.name();
  const bool shorter_form = now.empty() || (full.size() > now.size() && full.ends_with(now) &&
                                            full[full.size() - now.size() - 1] == '.');
  if (shorter_form) t.impl()->name = full;  // (set_name would also rename a producer's output: a leaf has none)
}

}  // namespace

// ---- registration ---------------------------------------------------------------------------

void Module::check_new_name(const std::string& name, const char* what) const {
  if (name.empty() || name.find('.') != std::string::npos)
    throw Error(type_, fmt::format("{} name '{}' must be non-empty and contain no '.'", what, name));
  bool taken = false;
  for (const Slot& s : slots_) taken |= s.name == name;
  for (const auto& [child, _] : children_) taken |= child == name;
  if (taken) throw Error(type_, fmt::format("{} name '{}' is already registered", what, name));
}

void Module::register_parameter(std::string name, Tensor& slot, const Tensor& value) {
  check_new_name(name, "parameter");
  check_defined(value, type_.c_str(), name.c_str());
  check_floating(value, type_.c_str(), name.c_str());
  slot = value.detach();
  slot.requires_grad_();
  slot.set_name(name);
  slots_.push_back({std::move(name), &slot, true, true});
}

void Module::register_buffer(std::string name, Tensor& slot, const Tensor& value, bool persistent) {
  check_new_name(name, "buffer");
  check_defined(value, type_.c_str(), name.c_str());
  slot = value.detach();
  slot.set_name(name);
  slots_.push_back({std::move(name), &slot, false, persistent});
}

void Module::add_child(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "module");
  if (!module) throw Error(type_, fmt::format("child module '{}' is null", name));
  module->train(training_);
  module->set_composed(composed_);
  children_.emplace_back(std::move(name), std::move(module));
  // The child's tensors carry their names within the child ("q_proj.weight"), and it and the
  // modules below it their paths: prefix them.
  const auto& [child_name, child] = children_.back();
  for (const Found& f : child->collect(Select::all)) name_tensor(*f.tensor, child_name + "." + f.name);
  child->prefix_paths(child_name);
}

void Module::prefix_paths(const std::string& prefix) {
  path_ = std::make_shared<const std::string>(path_->empty() ? prefix : prefix + "." + *path_);
  for (auto& [name, child] : children_) child->prefix_paths(prefix);
}

// ---- the tree -------------------------------------------------------------------------------

void Module::collect(Select select, const std::string& prefix, std::vector<Found>& out) const {
  const bool params = select != Select::buffers, buffers = select != Select::parameters;
  for (const Slot& s : slots_)
    if (s.parameter && params) out.push_back({prefix + s.name, s.tensor});
  for (const Slot& s : slots_)
    if (!s.parameter && buffers && (s.persistent || select != Select::state))
      out.push_back({prefix + s.name, s.tensor});
  for (const auto& [name, child] : children_) child->collect(select, prefix + name + ".", out);
}

std::vector<Module::Found> Module::collect(Select select) const {
  std::vector<Found> out;
  collect(select, "", out);
  return out;
}

std::vector<std::pair<std::string, const Module*>> Module::named_modules() const {
  std::vector<std::pair<std::string, const Module*>> out{{"", this}};
  for (const auto& [name, child] : children_)
    for (const auto& [below, module] : child->named_modules())
      out.emplace_back(below.empty() ? name : name + "." + below, module);
  return out;
}

NamedTensors Module::named_parameters() const {
  NamedTensors out;
  std::set<const TensorImpl*> seen;
  for (const Found& f : collect(Select::parameters)) {
    name_tensor(*f.tensor, f.name);  // catches up a child registered below a registered one
    if (seen.insert(f.tensor->impl()).second) out.emplace_back(f.name, *f.tensor);
  }
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& [_, p] : named_parameters()) out.push_back(p);
  return out;
}

NamedTensors Module::named_buffers() const {
  NamedTensors out;
  for (const Found& f : collect(Select::buffers)) {
    name_tensor(*f.tensor, f.name);
    out.emplace_back(f.name, *f.tensor);
  }
  return out;
}

// ---- modes ----------------------------------------------------------------------------------

void Module::train(bool on) {
  training_ = on;
  for (auto& [_, child] : children_) child->train(on);
}

void Module::set_composed(bool on) {
  composed_ = on;
  for (auto& [_, child] : children_) child->set_composed(on);
}

void Module::zero_grad() {
  for (const Found& f : collect(Select::parameters)) f.tensor->zero_grad();
}

void Module::reset_parameters(Generator& gen) {
  reset_own_parameters(gen);
  for (auto& [_, child] : children_) child->reset_parameters(gen);
}

// ---- hooks ----------------------------------------------------------------------------------

HookHandle Module::register_forward_hook(ForwardHook hook) const {
  if (!hook) throw Error(type_, "register_forward_hook: the hook is an empty function");
  if (!forward_hooks_) forward_hooks_ = std::make_shared<ForwardHooks>();
  const uint64_t id = forward_hooks_->next_id++;
  forward_hooks_->hooks.emplace_back(id, std::move(hook));
  return HookHandle([weak = std::weak_ptr<ForwardHooks>(forward_hooks_), id] {
    if (auto h = weak.lock()) std::erase_if(h->hooks, [id](const auto& hook) { return hook.first == id; });
  });
}

void Module::run_forward_hooks(const TensorList& inputs, const TensorList& outputs) const {
  const auto hooks = forward_hooks_->hooks;  // a copy: a hook may remove itself
  for (const auto& [_, hook] : hooks) hook(*this, inputs, outputs);
}

// ---- state ----------------------------------------------------------------------------------

NamedTensors Module::state_dict() const {
  NamedTensors out;
  for (const Found& f : collect(Select::state)) out.emplace_back(f.name, f.tensor->detach());
  return out;
}

LoadResult Module::load_state_dict(const NamedTensors& state, bool strict) {
  std::map<std::string, Tensor> given;
  LoadResult result;
  std::vector<std::string> duplicated, wrong;
  for (const auto& [name, t] : state)
    if (!given.emplace(name, t).second) duplicated.push_back(name);

  std::set<std::string> own;
  for (const Found& f : collect(Select::state)) {
    own.insert(f.name);
    auto it = given.find(f.name);
    if (it == given.end()) {
      result.missing.push_back(f.name);
    } else if (!it->second.defined()) {
      wrong.push_back(fmt::format("{} (expected {}, got an undefined tensor)", f.name, shape_str(f.tensor->shape())));
    } else if (it->second.shape() != f.tensor->shape()) {
      wrong.push_back(fmt::format("{} (expected {}, got {})", f.name, shape_str(f.tensor->shape()),
                                  shape_str(it->second.shape())));
    }
  }
  for (const auto& [name, _] : state)
    if (!own.contains(name)) result.unexpected.push_back(name);

  std::vector<std::string> problems;
  if (!duplicated.empty()) problems.push_back("duplicated entries: " + join_names(duplicated));
  if (!wrong.empty()) problems.push_back("wrong shapes: " + join_names(wrong));
  if (strict && !result.missing.empty()) problems.push_back("missing entries: " + join_names(result.missing));
  if (strict && !result.unexpected.empty()) problems.push_back("unexpected entries: " + join_names(result.unexpected));
  if (!problems.empty())
    throw Error("load_state_dict", fmt::format("into {}: {}", type_, fmt::join(problems, "; ")));

  NoGradGuard no_grad;
  for (const Found& f : collect(Select::state))
    if (auto it = given.find(f.name); it != given.end()) copy_(*f.tensor, it->second);
  return result;
}

Module& Module::to_(DType dtype) {
  for (const Found& f : collect(Select::all))
    if (is_floating(f.tensor->dtype()) && f.tensor->dtype() != dtype)
      replace_data(*f.tensor, to_dtype_copy(*f.tensor, dtype));
  return *this;
}

Module& Module::to_(Device device) {
  for (const Found& f : collect(Select::all))
    if (f.tensor->device() != device) replace_data(*f.tensor, to_device_copy(*f.tensor, device));
  return *this;
}

Tensor Module::functional_call(const NamedTensors& tensors, const std::function<Tensor()>& fn) {
  std::map<std::string, Tensor*> slots;
  for (const Found& f : collect(Select::all)) slots.emplace(f.name, f.tensor);
  std::vector<std::pair<Tensor*, Tensor>> bound;  // slot and the tensor it held
  for (const auto& [name, t] : tensors) {
    auto it = slots.find(name);
    if (it == slots.end())
      throw Error("functional_call", fmt::format("{} has no parameter or buffer '{}'", type_, name));
    const Tensor& own = *it->second;
    if (!t.defined() || t.shape() != own.shape() || t.dtype() != own.dtype() || t.device() != own.device())
      throw Error("functional_call", fmt::format("'{}' of {} is {} {}, given {}", name, type_, shape_str(own.shape()),
                                                dtype_name(own.dtype()), t.defined() ? t.describe() : "an undefined tensor"));
    bound.emplace_back(it->second, own);
  }
  for (size_t i = 0; i < bound.size(); ++i) *bound[i].first = tensors[i].second;
  struct Restore {
    std::vector<std::pair<Tensor*, Tensor>>& bound;
    ~Restore() {
      for (auto it = bound.rbegin(); it != bound.rend(); ++it) *it->first = it->second;
    }
  } restore{bound};
  return fn();
}

}  // namespace tg::nn
