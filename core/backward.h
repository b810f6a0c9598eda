#pragma once
// Backward through the tape, all at once (Tensor::backward, tg::backward) or one entry at a time:
//
//   BackwardStepper step(loss);
//   while (!step.done()) {
//     const Entry& e = step.step();             // runs e's backward rule
//     fmt::print("{}\n", e);                     // which op
//     for (auto& g : step.last_input_grads()) ...  // the gradients it produced
//   }
//
// The whole algorithm: seed grads[root] = grad_output; then for each entry, newest first (the
// tape order is already a topological order), call its rule on the gradients of its outputs
// and add what it returns for input x into grads[x] (a leaf's into x.grad()). That one rule,
// grads[x] += g, lives in BackwardStepper::accumulate (or, in a plain backward, in a rule
// that adds its gradient into the one gathered: BackwardContext::add_into_gathered).
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/tape.h"

namespace tg {

// The entries of the graph that computed `root`, in execution order (empty for a leaf).
std::vector<std::shared_ptr<Entry>> graph_entries(const Tensor& root);
// Every entry reachable from `roots` (no duplicates), newest first: the order backward runs them in.
std::vector<std::shared_ptr<Entry>> reverse_order_from(const std::vector<std::shared_ptr<Entry>>& roots);

// The gradient of sum_o <tensors[o], grad_tensors[o]> in one pass, as
// torch.autograd.backward(tensors, grad_tensors): every tensor must require grad; an omitted
// (or undefined) grad_tensors[o] means ones, for a one-element tensor only. A tensor listed twice,
// or computed from another one listed, gets both contributions.
//   tg::backward({loss, aux}, {});                     // d(loss + aux)
//   tg::backward({out, weights}, {grad_out, grad_w});  // a vector-Jacobian product of two outputs
void backward(const TensorList& tensors, const TensorList& grad_tensors = {}, bool retain_graph = false);

struct BackwardOptions {
  std::optional<bool> retain_graph = {};  // keep the saved tensors for another backward; default: create_graph
  // Run each entry's reference rule with grad mode on, so that the gradients are recorded on
  // the tape and can be differentiated again; sums are then taken out of place.
  bool create_graph = false;
  // tg::grad: the gradients of these tensors are kept aside (BackwardStepper::captured())
  // rather than added into .grad(); entries that lead to none of them are not run, and no
  // leaf's .grad() changes.
  TensorList capture = {};
};

// One gradient a tensor received: a tensor used n times receives n, and its gradient is their sum.
struct GradContribution {
  int64_t entry = -1;  // tape_position of the entry whose rule produced it; -1: the seed (a root's grad_output)
  size_t input = 0;    // which input of that entry the tensor was
  Tensor grad;
};

class BackwardStepper {
 public:
  explicit BackwardStepper(const Tensor& root, const Tensor& grad_output = {}, bool retain_graph = false);
  // Several roots at once (see tg::backward above); grad_outputs empty or one per root.
  BackwardStepper(const TensorList& roots, const TensorList& grad_outputs, bool retain_graph = false);
  BackwardStepper(const TensorList& roots, const TensorList& grad_outputs, BackwardOptions options);

  bool done() const { return next_ >= order_.size(); }
  size_t remaining() const { return order_.size() - next_; }
  const Entry& peek() const;  // the entry step() will run
  const Entry& step();        // runs one entry's backward rule
  void run();                 // step() until done(), showing no gradients (below)

  // The gradients of the last entry step() ran: of its outputs (what flowed in) and of its
  // inputs (what its rule produced; undefined where an input needs no gradient). They stay as
  // shown. run() shows none (both empty), which lets accumulate() sum in place more often.
  const TensorList& last_output_grads() const { return last_output_grads_; }
  const TensorList& last_input_grads() const { return last_input_grads_; }
  // The gradient gathered so far for a non-leaf tensor that later entries have not consumed.
  Tensor pending_grad(const Tensor& t) const;
  // Every gradient tensor `tensor_id` has received so far in this pass, in arrival order: for
  // the outputs of the entry step() just ran, what was summed into last_output_grads(); for a
  // leaf, what was added into its .grad(). Kept only while stepping (run() keeps none).
  const std::vector<GradContribution>& contributions(int64_t tensor_id) const;
  // With BackwardOptions::capture: the gradient of each captured tensor (undefined where none
  // reached it), in the order given.
  TensorList captured() const;

 private:
  void accumulate(const EntryInput& target, const Tensor& grad, int64_t from_entry, size_t from_input);
  void add_to(Tensor& sum, const Tensor& grad) const;
  void add_to_grad(std::shared_ptr<TensorImpl>& dst, const Tensor& grad) const;
  void keep_entries_leading_to_captured();
  TensorList gathered_for(const Entry& e) const;

  std::vector<std::shared_ptr<Entry>> order_;  // reverse execution order
  size_t next_ = 0;
  bool retain_graph_;
  bool create_graph_ = false;
  bool show_grads_ = true;                     // step() keeps last_*_grads_; run() turns it off
  std::unordered_map<int64_t, Tensor> grads_;  // non-leaf tensor id -> gradient so far
  std::unordered_map<int64_t, std::vector<GradContribution>> contributions_;  // tensor id -> while stepping
  TensorList last_output_grads_, last_input_grads_;
  std::vector<int64_t> capture_ids_;                 // the captured tensors' ids, in order
  std::unordered_map<int64_t, Tensor> captured_;     // captured id -> gradient so far
};

}  // namespace tg
