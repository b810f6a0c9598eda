#include "core/backward.h"

#include <algorithm>
#include <unordered_set>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"

namespace tg {

std::vector<std::shared_ptr<Entry>> graph_entries(const Tensor& root) {
  if (!root.defined() || !root.producer()) return {};
  auto order = reverse_order_from(root.producer());
  std::reverse(order.begin(), order.end());
  return order;
}

// Every entry reachable from `root` through input producers, newest first.
std::vector<std::shared_ptr<Entry>> reverse_order_from(const std::shared_ptr<Entry>& root) {
  std::vector<std::shared_ptr<Entry>> found{root}, stack{root};
  std::unordered_set<const Entry*> seen{root.get()};
  while (!stack.empty()) {
    auto e = stack.back();
    stack.pop_back();
    for (const auto& in : e->inputs)
      if (in.producer && in.requires_grad && seen.insert(in.producer.get()).second) {
        found.push_back(in.producer);
        stack.push_back(in.producer);
      }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a->seq > b->seq; });
  return found;
}

namespace {

void check_saved_versions(const Entry& e) {
  for (const auto& s : e.saved)
    if (s.tensor.defined() && s.tensor.storage()->version() != s.version)
      throw Error(e.op, fmt::format("saved tensor '{}' {} of tape entry #{} was modified in place after "
                                    "it was saved; its gradient would be wrong", s.name,
                                    shape_str(s.tensor.shape()), e.index));
}

void check_gradient(const Tensor& grad, const TensorRecord& target, const Entry& e, const char* what) {
  if (grad.shape() != target.shape || grad.dtype() != target.dtype)
    throw Error(e.op, fmt::format("backward rule of tape entry #{} returned a {} {} gradient for {} {} {}",
                                  e.index, shape_str(grad.shape()), dtype_name(grad.dtype()), what,
                                  shape_str(target.shape), dtype_name(target.dtype)));
  if (AnomalyMode::enabled() && !all_finite(grad))
    throw Error(e.op, fmt::format("anomaly: backward of tape entry #{} '{}' produced NaN or Inf in the "
                                  "gradient for {} {}; the entry is {}",
                                  e.index, e.op, what, shape_str(target.shape), e.str()));
}

// Whether t is the only handle on its data: no other handle, no view of its storage (a rule may
// return a tensor it also saved, or one gradient for two inputs), and contiguous.
bool sole_handle(const Tensor& t) {
  return t.impl_ptr().use_count() == 1 && t.storage().use_count() == 1 && t.is_contiguous();
}

}  // namespace

BackwardStepper::BackwardStepper(const Tensor& root, const Tensor& grad_output, bool retain_graph)
    : retain_graph_(retain_graph) {
  check_defined(root, "backward", "tensor");
  if (!root.requires_grad())
    throw Error("backward", fmt::format("{} does not require grad and was computed by no tape entry "
                                        "(did you forget requires_grad_() on a leaf, or run under NoGradGuard?)",
                                        root.describe()));
  Tensor seed = grad_output;
  if (!seed.defined()) {
    if (root.numel() != 1)
      throw Error("backward", fmt::format("grad_output can be omitted only for a one-element tensor, "
                                          "but the tensor has shape {}", shape_str(root.shape())));
    seed = ones(root.shape(), root.dtype(), root.device());
  }
  if (seed.shape() != root.shape() || seed.dtype() != root.dtype())
    throw Error("backward", fmt::format("grad_output {} {} does not match the tensor {}", shape_str(seed.shape()),
                                        dtype_name(seed.dtype()), root.describe()));
  if (root.is_leaf()) {  // nothing to walk: the seed is the leaf's gradient
    EntryInput self;
    self.leaf = root.impl_ptr();
    accumulate(self, seed);
    return;
  }
  order_ = reverse_order_from(root.producer());
  // Checked for every entry before any runs, so a failing backward leaves no partial gradients.
  for (const auto& e : order_) {
    if (e->released)
      throw Error("backward", fmt::format("tape entry #{} '{}' was already used by a backward pass that "
                                          "freed its saved tensors; pass retain_graph=true to the first "
                                          "backward to run through the tape twice", e->index, e->op));
    check_saved_versions(*e);
  }
  grads_[root.id()] = seed;
}

const Entry& BackwardStepper::peek() const {
  if (done()) throw Error("backward", "no entries left to step");
  return *order_[next_];
}

Tensor BackwardStepper::pending_grad(const Tensor& t) const {
  auto it = grads_.find(t.id());
  return it == grads_.end() ? Tensor() : it->second;
}

void BackwardStepper::accumulate(const EntryInput& input, const Tensor& grad) {
  if (input.leaf) {
    TensorImpl& leaf = *input.leaf;
    if (leaf.grad)
      add_into_(Tensor(leaf.grad), grad);
    else if (sole_handle(grad))
      leaf.grad = grad.impl_ptr();  // nothing else sees it: kept as it is
    else
      leaf.grad = contiguous_copy(grad).impl_ptr();  // own copy: grad may alias another tensor
    return;
  }
  auto [it, inserted] = grads_.try_emplace(input.record.id, grad);
  if (inserted) return;
  Tensor& held = it->second;
  // The sum so far is added to in place when nothing else can see it.
  if (sole_handle(held)) {
    add_into_(held, grad);
    return;
  }
  Tensor sum = contiguous_copy(held);
  add_into_(sum, grad);
  held = sum;
}

const Entry& BackwardStepper::step() { return step_entry(true); }

const Entry& BackwardStepper::step_entry(bool keep_last_grads) {
  if (done()) throw Error("backward", "no entries left to step");
  Entry& e = *order_[next_++];
  NoGradGuard no_grad;
  check_saved_versions(e);  // again: a stepping user may have written in between
  TensorList filled;        // the outputs' gradients; rules see zeros for outputs that got none
  bool any = false;
  for (const auto& out : e.outputs) {
    auto it = grads_.find(out.id);
    if (it == grads_.end()) {
      filled.emplace_back();
      continue;
    }
    any = true;
    filled.push_back(std::move(it->second));
    grads_.erase(it);
  }
  last_output_grads_ = keep_last_grads ? filled : TensorList();
  last_input_grads_.assign(keep_last_grads ? e.inputs.size() : 0, Tensor());
  if (any) {
    for (size_t i = 0; i < filled.size(); ++i)
      if (!filled[i].defined()) filled[i] = zeros(e.outputs[i].shape, e.outputs[i].dtype, e.outputs[i].device);
    TensorList input_grads;
    try {
      input_grads = e.backward(BackwardContext(e, std::move(filled)));
    } catch (const Error& err) {  // an op the rule calls failed (an anomaly, say): say which entry ran it
      throw Error(e.op, fmt::format("in the backward rule of tape entry #{} '{}': {}", e.index, e.op, err.what()));
    }
    if (input_grads.size() != e.inputs.size())
      throw Error(e.op, fmt::format("backward rule of tape entry #{} returned {} gradients for {} inputs",
                                    e.index, input_grads.size(), e.inputs.size()));
    for (size_t i = 0; i < e.inputs.size(); ++i) {
      const EntryInput& in = e.inputs[i];
      if (!in.requires_grad || !input_grads[i].defined()) continue;
      check_gradient(input_grads[i], in.record, e, fmt::format("input {}", i).c_str());
      if (keep_last_grads) last_input_grads_[i] = input_grads[i];
      accumulate(in, input_grads[i]);
    }
  }
  if (!retain_graph_) {
    e.saved.clear();
    e.backward = nullptr;
    e.released = true;
  }
  return e;
}

void BackwardStepper::run() {
  while (!done()) step_entry(false);
}

void Tensor::backward(const Tensor& grad_output, bool retain_graph) const {
  BackwardStepper(*this, grad_output, retain_graph).run();
}

}  // namespace tg
