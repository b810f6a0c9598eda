#pragma once
// Backward through the tape, all at once (Tensor::backward) or one entry at a time:
//
//   BackwardStepper step(loss);
//   while (!step.done()) {
//     const Entry& e = step.step();             // runs e's backward rule
//     fmt::print("{}\n", e);                     // which op
//     for (auto& g : step.last_input_grads()) ...  // the gradients it produced
//   }
//
// Entries are run in reverse execution order (the tape order is already a topological
// order). Gradients flowing into the same tensor add up; leaves accumulate into .grad().
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/tape.h"

namespace tg {

// The entries of the graph that computed `root`, in execution order (empty for a leaf).
std::vector<std::shared_ptr<Entry>> graph_entries(const Tensor& root);
// The same from an entry, newest first: the order backward runs them in.
std::vector<std::shared_ptr<Entry>> reverse_order_from(const std::shared_ptr<Entry>& root);

class BackwardStepper {
 public:
  explicit BackwardStepper(const Tensor& root, const Tensor& grad_output = {}, bool retain_graph = false);

  bool done() const { return next_ >= order_.size(); }
  size_t remaining() const { return order_.size() - next_; }
  const Entry& peek() const;  // the entry step() will run
  const Entry& step();        // runs one entry's backward rule
  void run();                 // runs every remaining entry

  // The gradients of the last entry step() ran: of its outputs (what flowed in) and of its
  // inputs (what its rule produced; undefined where an input needs no gradient). run() keeps
  // none (empty after it): a gradient nobody else holds is then summed in place, or becomes a
  // leaf's .grad, without a copy.
  const TensorList& last_output_grads() const { return last_output_grads_; }
  const TensorList& last_input_grads() const { return last_input_grads_; }
  // The gradient gathered so far for a non-leaf tensor that later entries have not consumed.
  Tensor pending_grad(const Tensor& t) const;

 private:
  const Entry& step_entry(bool keep_last_grads);
  void accumulate(const EntryInput& input, const Tensor& grad);

  std::vector<std::shared_ptr<Entry>> order_;  // reverse execution order
  size_t next_ = 0;
  bool retain_graph_;
  std::unordered_map<int64_t, Tensor> grads_;  // non-leaf tensor id -> gradient so far
  TensorList last_output_grads_, last_input_grads_;
};

}  // namespace tg
