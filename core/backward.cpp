#include "core/backward.h"

#include <algorithm>
#include <unordered_set>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"

namespace tg {

std::vector<std::shared_ptr<Entry>> graph_entries(const Tensor& root) {
  if (!root.defined() || !root.producer()) return {};
  auto order = reverse_order_from({root.producer()});
  std::reverse(order.begin(), order.end());
  return order;
}

std::vector<std::shared_ptr<Entry>> reverse_order_from(const std::vector<std::shared_ptr<Entry>>& roots) {
  std::vector<std::shared_ptr<Entry>> found, stack;
  std::unordered_set<const Entry*> seen;
  auto visit = [&](const std::shared_ptr<Entry>& e) {
    if (!seen.insert(e.get()).second) return;
    found.push_back(e);
    stack.push_back(e);
  };
  for (const auto& root : roots) visit(root);
  while (!stack.empty()) {
    auto e = stack.back();
    stack.pop_back();
    for (const auto& in : e->inputs)
      if (in.producer && in.requires_grad) visit(in.producer);
  }
  std::sort(found.begin(), found.end(),
            [](const auto& a, const auto& b) { return a->creation_order > b->creation_order; });
  return found;
}

namespace {

void check_saved_versions(const Entry& e) {
  for (const auto& s : e.saved)
    if (s.tensor.defined() && s.tensor.storage()->version() != s.version)
      throw Error(e.op, fmt::format("saved tensor '{}' {} of tape entry #{} was modified in place after "
                                    "it was saved; its gradient would be wrong", s.name,
                                    shape_str(s.tensor.shape()), e.tape_position));
}

void check_gradient(const Tensor& grad, const TensorRecord& target, const Entry& e, size_t input) {
  if (grad.shape() != target.shape || grad.dtype() != target.dtype)
    throw Error(e.op, fmt::format("backward rule of tape entry #{} returned a {} {} gradient for input {} {} {}",
                                  e.tape_position, shape_str(grad.shape()), dtype_name(grad.dtype()), input,
                                  shape_str(target.shape), dtype_name(target.dtype)));
  if (AnomalyMode::enabled() && !all_finite(grad))
    throw Error(e.op, fmt::format("anomaly: backward of tape entry #{} '{}' produced NaN or Inf in the "
                                  "gradient for input {} {}; the entry is {}",
                                  e.tape_position, e.op, input, shape_str(target.shape), e.str()));
}

// e's outputs' gradients, zeros for those that got none.
TensorList with_zeros(const Entry& e, TensorList grad_outputs) {
  for (size_t i = 0; i < grad_outputs.size(); ++i) {
    const TensorRecord& out = e.outputs[i];
    if (!grad_outputs[i].defined()) grad_outputs[i] = zeros(out.shape, out.dtype, out.device);
  }
  return grad_outputs;
}

// Runs e's rule and checks what it returns: one gradient per input, each of its input's shape
// and dtype, or undefined; where the rule added into the gathered gradient, that tensor.
TensorList run_rule(const Entry& e, const BackwardContext& ctx, const TensorList& gathered) {
  TensorList grad_inputs;
  try {
    grad_inputs = (ctx.create_graph() || !e.fast ? e.reference : e.fast)(ctx);
  } catch (const Error& err) {  // an op the rule calls failed (an anomaly, say): say which entry ran it
    throw Error(e.op, fmt::format("in the backward rule of tape entry #{} '{}': {}", e.tape_position, e.op,
                                  err.what()));
  }
  if (grad_inputs.size() != e.inputs.size())
    throw Error(e.op, fmt::format("backward rule of tape entry #{} returned {} gradients for {} inputs",
                                  e.tape_position, grad_inputs.size(), e.inputs.size()));
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    if (ctx.added_into_gathered(int(i)) && grad_inputs[i].impl() != gathered[i].impl())
      throw Error(e.op, fmt::format("backward rule of tape entry #{} added into the gradient gathered for input "
                                    "{} but returned another tensor", e.tape_position, i));
    if (e.inputs[i].requires_grad && grad_inputs[i].defined()) check_gradient(grad_inputs[i], e.inputs[i].record, e, i);
  }
  return grad_inputs;
}

// Whether nothing but `t` sees its data: no other handle, no view of its storage, and it is
// contiguous. Only then may a sum be written into it without changing a tensor someone holds.
bool unshared(const Tensor& t) {
  return t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous();
}

// The tensor `target` stands for in a backward pass: its id, and the leaf itself if it is one.
EntryInput as_target(const Tensor& t) {
  EntryInput target;
  target.record.id = t.id();
  if (t.is_leaf()) target.leaf = t.impl_ptr();
  return target;
}

}  // namespace

BackwardStepper::BackwardStepper(const Tensor& root, const Tensor& grad_output, bool retain_graph)
    : BackwardStepper(TensorList{root}, TensorList{grad_output}, retain_graph) {}

BackwardStepper::BackwardStepper(const TensorList& roots, const TensorList& grad_outputs, bool retain_graph)
    : BackwardStepper(roots, grad_outputs, BackwardOptions{.retain_graph = retain_graph}) {}

BackwardStepper::BackwardStepper(const TensorList& roots, const TensorList& grad_outputs, BackwardOptions options)
    : retain_graph_(options.retain_graph.value_or(options.create_graph)), create_graph_(options.create_graph) {
  for (const Tensor& t : options.capture) {
    capture_ids_.push_back(t.id());
    captured_.try_emplace(t.id());
  }
  if (!grad_outputs.empty() && grad_outputs.size() != roots.size())
    throw Error("backward", fmt::format("got {} gradients for {} tensors", grad_outputs.size(), roots.size()));
  const bool one = roots.size() == 1;  // messages say "tensor 2" only when there are several
  TensorList seeds;
  std::vector<std::shared_ptr<Entry>> producers;
  for (size_t r = 0; r < roots.size(); ++r) {
    const Tensor& root = roots[r];
    const std::string which = one ? "the tensor" : fmt::format("tensor {}", r);
    check_defined(root, "backward", one ? "tensor" : which.c_str());
    if (!root.requires_grad())
      throw Error("backward", fmt::format("{}{} does not require grad and was computed by no tape entry (did "
                                          "you forget requires_grad_() on a leaf, or run under NoGradGuard?)",
                                          one ? "" : which + " ", root.describe()));
    Tensor seed = grad_outputs.empty() ? Tensor() : grad_outputs[r];
    if (!seed.defined()) {
      if (root.numel() != 1)
        throw Error("backward", fmt::format("grad_output can be omitted only for a one-element tensor, "
                                            "but {} has shape {}", which, shape_str(root.shape())));
      seed = ones(root.shape(), root.dtype(), root.device());
    }
    if (seed.shape() != root.shape() || seed.dtype() != root.dtype())
      throw Error("backward", fmt::format("grad_output {} {} does not match {} {}", shape_str(seed.shape()),
                                          dtype_name(seed.dtype()), which, root.describe()));
    seeds.push_back(seed);
    if (!root.is_leaf()) producers.push_back(root.producer());
  }
  order_ = reverse_order_from(producers);
  if (!capture_ids_.empty()) keep_entries_leading_to_captured();
  // Checked for every entry before any runs, so a failing backward leaves no partial gradients.
  for (const auto& e : order_) {
    if (e->released)
      throw Error("backward", fmt::format("tape entry #{} '{}' was already used by a backward pass that "
                                          "freed its saved tensors; pass retain_graph=true to the first "
                                          "backward to run through the tape twice", e->tape_position, e->op));
    check_saved_versions(*e);
  }
  for (size_t r = 0; r < roots.size(); ++r) accumulate(as_target(roots[r]), seeds[r], -1, r);
}

void backward(const TensorList& tensors, const TensorList& grad_tensors, bool retain_graph) {
  BackwardStepper(tensors, grad_tensors, retain_graph).run();
}

void Tensor::backward(const Tensor& grad_output, std::optional<bool> retain_graph, bool create_graph) const {
  BackwardStepper({*this}, {grad_output}, {.retain_graph = retain_graph, .create_graph = create_graph}).run();
}

// tg::grad runs only what reaches the tensors it was asked about: an entry is kept when one
// of its inputs is captured or was made by a kept entry (producers are older, so one pass
// from the oldest entry decides).
void BackwardStepper::keep_entries_leading_to_captured() {
  std::unordered_set<const Entry*> kept;
  for (auto it = order_.rbegin(); it != order_.rend(); ++it)
    for (const EntryInput& in : (*it)->inputs)
      if (in.requires_grad && (captured_.contains(in.record.id) || (in.producer && kept.contains(in.producer.get()))))
        kept.insert(it->get());
  std::erase_if(order_, [&](const auto& e) { return !kept.contains(e.get()); });
}

TensorList BackwardStepper::captured() const {
  TensorList grads;
  for (int64_t id : capture_ids_) grads.push_back(captured_.at(id));
  return grads;
}

const Entry& BackwardStepper::peek() const {
  if (done()) throw Error("backward", "no entries left to step");
  return *order_[next_];
}

Tensor BackwardStepper::pending_grad(const Tensor& t) const {
  auto it = grads_.find(t.id());
  return it == grads_.end() ? Tensor() : it->second;
}

const std::vector<GradContribution>& BackwardStepper::contributions(int64_t tensor_id) const {
  static const std::vector<GradContribution> none;
  auto it = contributions_.find(tensor_id);
  return it == contributions_.end() ? none : it->second;
}

namespace {

// grad after the tensor's hooks, each on the previous one's result (core/hooks.h).
Tensor run_hooks(const TensorHooks& hooks, Tensor grad, const char* whose) {
  for (const auto& [_, hook] : std::vector(hooks.hooks)) {  // a copy: a hook may remove itself
    Tensor replaced = hook(grad);
    if (!replaced.defined()) continue;
    if (replaced.shape() != grad.shape() || replaced.dtype() != grad.dtype())
      throw Error("register_hook", fmt::format("a hook on {} returned a {} {} gradient for a {} {} one", whose,
                                               shape_str(replaced.shape()), dtype_name(replaced.dtype()),
                                               shape_str(grad.shape()), dtype_name(grad.dtype())));
    grad = replaced;
  }
  return grad;
}

// a + b of two gradients of one tensor (same shape and dtype), recorded as "add" on the tape:
// how a backward that creates a graph sums (core sits below ops/, so it cannot call tg::add).
Tensor recorded_sum(const Tensor& a, const Tensor& b) {
  auto sum_of = [](const Tensor& x, const Tensor& y) {
    Tensor out = contiguous_copy(x);
    add_into_(out, y);
    return out;
  };
  Tensor out = sum_of(a, b);
  if (Recorder rec("add", {a, b}, {out}); rec) {
    rec.forward([&](const ForwardContext& f) -> TensorList {
      if (!f.has_tangent(0) || !f.has_tangent(1)) return {f.has_tangent(0) ? f.tangent(0) : f.tangent(1)};
      return {sum_of(f.tangent(0), f.tangent(1))};
    });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {ctx.grad(), ctx.grad()}; });
  }
  return out;
}

}  // namespace

// dst += grad, where dst is a tensor's accumulated gradient (a leaf's, or a retained one).
// Creating a graph, the sum is a new tensor on the tape, and the first gradient is kept as
// it is (with its history).
void BackwardStepper::add_to_grad(std::shared_ptr<TensorImpl>& dst, const Tensor& grad) const {
  if (create_graph_)
    dst = (dst ? recorded_sum(Tensor(dst), grad) : grad).impl_ptr();
  else if (dst)
    add_into_(Tensor(dst), grad);
  else
    dst = (unshared(grad) ? grad : contiguous_copy(grad)).impl_ptr();
}

// sum += grad for a gradient gathered in this pass: in place when nothing else sees the sum,
// out of place on the tape when creating a graph.
void BackwardStepper::add_to(Tensor& sum, const Tensor& grad) const {
  if (!sum.defined()) {
    sum = grad;
  } else if (create_graph_) {
    sum = recorded_sum(sum, grad);
  } else {
    if (!unshared(sum)) sum = contiguous_copy(sum);
    add_into_(sum, grad);
  }
}

// grads[target] += grad: the one rule of backward, for the gradient gathered so far for a
// non-leaf tensor and for a leaf's .grad().
//
// Written as it reads, every += would allocate a new tensor. Instead a sum is added into in
// place when nothing else sees its data (unshared()): usually so, since a rule's result is a
// fresh tensor. It may not be: a rule can return a tensor it also saved, or one gradient for
// two inputs (add), or a view of its output's gradient (reshape); step() shows the gradients
// it ran with; a user may hold any of them. Then the sum is a new tensor and the others keep
// their values. So:
//   first gradient of a non-leaf tensor:  kept as it is (it is only read, until a second comes)
//   first gradient of a leaf:             becomes its .grad(), copied unless unshared
//   a later one, non-leaf:                added in place if the sum is unshared, else sum + grad
//   a later one, leaf:                    added into .grad() in place, as in PyTorch: whoever
//                                         holds x.grad() sees the sum
void BackwardStepper::accumulate(const EntryInput& target, const Tensor& grad, int64_t from_entry,
                                 size_t from_input) {
  if (show_grads_) contributions_[target.record.id].push_back({from_entry, from_input, grad});
  if (!capture_ids_.empty()) {  // tg::grad: no .grad() changes
    if (auto it = captured_.find(target.record.id); it != captured_.end()) add_to(it->second, grad);
    if (target.leaf) return;
  } else if (target.leaf) {
    TensorImpl& leaf = *target.leaf;
    if (leaf.hooks)
      add_to_grad(leaf.grad, run_hooks(*leaf.hooks, grad, "a leaf"));
    else
      add_to_grad(leaf.grad, grad);  // not `hooks ? run_hooks(...) : grad`: that copies grad, and a copy is shared
    return;
  }
  add_to(grads_[target.record.id], grad);
}

// The gradients gathered so far for e's inputs that its fast rule may add into in place
// (BackwardContext::add_into_gathered): only in a plain backward (run(): no one is shown the
// gradients; no graph created, no tg::grad, no anomaly mode, which names the entry that made a
// NaN), only for tensors that are not leaves and whose sum nothing else sees, each once.
TensorList BackwardStepper::gathered_for(const Entry& e) const {
  if (show_grads_ || create_graph_ || !capture_ids_.empty() || AnomalyMode::enabled() || !e.fast) return {};
  TensorList gathered(e.inputs.size());
  std::unordered_set<int64_t> offered;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const EntryInput& in = e.inputs[i];
    if (!in.requires_grad || in.leaf || !offered.insert(in.record.id).second) continue;
    auto it = grads_.find(in.record.id);
    if (it != grads_.end() && unshared(it->second)) gathered[i] = it->second;
  }
  return gathered;
}

const Entry& BackwardStepper::step() {
  if (done()) throw Error("backward", "no entries left to step");
  Entry& e = *order_[next_++];
  GradModeGuard grad_mode(create_graph_);
  check_saved_versions(e);  // again: a stepping user may have written in between
  last_output_grads_.clear();  // the previous step's, no longer shown: their sums may be written in place
  last_input_grads_.clear();

  TensorList grad_outputs;  // taken out of grads_: undefined for an output that got none
  bool any = false;
  for (const auto& out : e.outputs) {
    auto it = grads_.find(out.id);
    if (it == grads_.end()) {
      grad_outputs.emplace_back();
      continue;
    }
    grad_outputs.push_back(std::move(it->second));
    grads_.erase(it);
    any = true;
  }
  for (size_t i = 0; i < e.output_hooks.size(); ++i) {  // empty unless a tensor asked (core/hooks.h)
    const TensorHooks* hooks = e.output_hooks[i].get();
    if (!hooks || !grad_outputs[i].defined()) continue;
    grad_outputs[i] = run_hooks(*hooks, grad_outputs[i], "a non-leaf tensor");
    if (auto tensor = hooks->tensor.lock(); tensor && hooks->retain_grad) add_to_grad(tensor->grad, grad_outputs[i]);
  }
  if (show_grads_) {
    last_output_grads_ = grad_outputs;
    last_input_grads_.assign(e.inputs.size(), Tensor());
  }
  if (any) {  // else no gradient flows through this entry
    const TensorList gathered = gathered_for(e);
    const BackwardContext ctx(e, with_zeros(e, std::move(grad_outputs)), create_graph_, gathered);
    const TensorList grad_inputs = run_rule(e, ctx, gathered);
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      if (!e.inputs[i].requires_grad || !grad_inputs[i].defined()) continue;
      if (ctx.added_into_gathered(int(i))) continue;  // the rule added it into grads_ itself
      if (show_grads_) last_input_grads_[i] = grad_inputs[i];
      accumulate(e.inputs[i], grad_inputs[i], e.tape_position, i);
    }
  }
  if (!retain_graph_) {
    e.saved.clear();
    e.reference = nullptr;
    e.fast = nullptr;
    e.released = true;
  }
  return e;
}

void BackwardStepper::run() {
  show_grads_ = false;
  contributions_.clear();
  while (!done()) step();
}

}  // namespace tg
