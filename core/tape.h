#pragma once
// The tape: every differentiable op that sees an input requiring grad appends one Entry, in
// execution order. backward() walks the entries from last to first (core/backward.h).
//
// An Entry is data first: its position on the tape, the op's name, its inputs' and outputs' ids and shapes,
// its named saved tensors and printable attributes. The backward rule is the only code in it.
//
// Ownership: an output tensor owns its producing entry, and an entry owns the entries that
// produced its inputs, so a graph lives exactly as long as the tensors computed from it. The
// Tape itself only lists entries (weakly) in order, for printing, DOT export and stepping.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/module_scope.h"
#include "core/tensor.h"

namespace tg {

struct TensorRecord {  // what the tape keeps of a tensor: enough to print and to check shapes
  int64_t id = 0;
  Shape shape;
  DType dtype = kF32;
  Device device;
  std::string name;
};

struct EntryInput {
  TensorRecord record;
  bool requires_grad = false;
  std::shared_ptr<Entry> producer;   // entry that made this input (null for leaves)
  std::shared_ptr<TensorImpl> leaf;  // the leaf whose .grad accumulates (null otherwise)
  Tensor scalar;  // a one-element input that needs no gradient (1/sqrt(d), -inf): printed by value
  // The input's name as printed: its own, or the one its producer's output took after the fact.
  const std::string& name() const;
  // A scalar constant as printed: "0.5", or "1/sqrt(d_k) = 0.5" when it was named.
  std::string scalar_str() const;
};

struct SavedTensor {
  std::string name;
  Tensor tensor;  // detached: what a fast path reads
  uint64_t version = 0;  // storage version when saved; a later in-place write is an error
  // Where it came from, so that a backward creating a graph differentiates through it: the
  // entry's input itself (its history with it), or the index of the entry's output (kept by
  // index: the output owns this entry). Neither for a constant (a mask, a dropout draw).
  Tensor input = {};
  int output = -1;
  std::weak_ptr<TensorImpl> output_tensor = {};  // the output itself while it lives (its tangent too)
};

class BackwardContext;
// One gradient per input (an undefined Tensor where an input needs none).
using BackwardRule = std::function<TensorList(const BackwardContext&)>;

struct Entry : std::enable_shared_from_this<Entry> {
  // Two numbers, for two readers. tape_position is for people: the "#3" of printouts and error
  // messages, counted on this thread's tape and restarted by tape().clear(). creation_order is
  // for backward: a process-wide count that is never reset, so that entries of any graphs sort
  // into execution order (a graph may span a clear(), or be built on several threads).
  int64_t tape_position = 0;
  uint64_t creation_order = 0;
  std::string op;
  std::vector<EntryInput> inputs;
  std::vector<TensorRecord> outputs;
  std::vector<SavedTensor> saved;
  std::vector<std::pair<std::string, std::string>> attributes;  // {"dim", "1"}
  // The dotted path of the module whose forward made it (core/module_scope.h); null outside any.
  ModulePath module;
  // The op's derivative, written with tapegrad ops (ops/<op>/<op>.cpp): run with grad mode on
  // when a backward creates a graph, so that the gradient is itself differentiable.
  BackwardRule reference;
  // The same gradient by hand-written kernels, when the op has them: run when no graph is
  // created (null: the reference rule runs everywhere). tests/ops/fast_path_test.cpp holds each
  // to its reference.
  BackwardRule fast;
  bool released = false;  // a backward without retain_graph went through it
  // Per output, the hooks a tensor registered (retain_grad, register_hook); empty when none did.
  std::vector<std::shared_ptr<TensorHooks>> output_hooks;

  // One line: "#3 matmul(x (2,3), w (3,4)) -> q (2,4)  saved: a, b"; a scalar constant shows its
  // value ("mul(q k^T (3,3), 0.5 const)").
  std::string str() const;
};

// What a backward rule sees: the gradients of the entry's outputs and its saved tensors.
class BackwardContext {
 public:
  BackwardContext(const Entry& entry, TensorList grad_outputs, bool create_graph = false, TensorList gathered = {})
      : entry_(entry),
        grad_outputs_(std::move(grad_outputs)),
        create_graph_(create_graph),
        gathered_(std::move(gathered)),
        added_(gathered_.size(), false) {}
  const Tensor& grad(int output = 0) const { return grad_outputs_.at(output); }
  // The gradient other entries have already given `input`, offered for the rule to add its own
  // into, in place, and then return as that input's gradient: the sum the backward pass would
  // otherwise take in a pass of its own. Undefined where none is offered: the backward pass
  // offers a gradient only when nothing else can see it (a plain backward: no graph created,
  // no one stepping, no tg::grad, no anomaly mode), and only to the fast rule. A rule that
  // takes it must leave the bits of grad + its own gradient, as the separate sum would.
  Tensor add_into_gathered(int input) const;
  bool added_into_gathered(int input) const { return input < int(added_.size()) && added_[input]; }
  // The tensor saved under `name`. While a backward creates a graph, a saved input or output is
  // the tensor itself, with its history, so what the rule computes from it is recorded.
  const Tensor& saved(std::string_view name) const;
  const Shape& input_shape(int input) const { return entry_.inputs.at(input).record.shape; }
  DType input_dtype(int input) const { return entry_.inputs.at(input).record.dtype; }
  bool needs_grad(int input) const { return entry_.inputs.at(input).requires_grad; }
  bool create_graph() const { return create_graph_; }
  const Entry& entry() const { return entry_; }

 private:
  const Tensor& differentiable(const SavedTensor& s) const;
  const Entry& entry_;
  TensorList grad_outputs_;
  bool create_graph_;
  TensorList gathered_;              // per input: the gradient gathered so far, where offered
  mutable std::vector<bool> added_;  // per input: whether the rule took gathered_[input]
  mutable TensorList outputs_;  // the entry's outputs as tensors again, made on first use
};

// What a forward-mode rule sees (core/forward_ad.h): the op's inputs and outputs (values only,
// without tangents) and the inputs' tangents (undefined: zero).
class ForwardContext {
 public:
  ForwardContext(const TensorList& inputs, const TensorList& outputs);
  const Tensor& input(int i) const { return inputs_.at(i); }
  const Tensor& output(int i = 0) const { return outputs_.at(i); }
  const Tensor& tangent(int i) const { return tangents_.at(i); }
  bool has_tangent(int i) const { return tangents_.at(i).defined(); }
  // The tangent, or zeros of the input's shape where it has none: for rules that read best
  // without a case per input.
  Tensor tangent_or_zeros(int i) const;

 private:
  TensorList inputs_, outputs_, tangents_;
};

class Tape {
 public:
  // Live entries in execution order.
  std::vector<std::shared_ptr<Entry>> entries() const;
  void clear();  // forgets the listing (graphs stay valid) and restarts tape_position at 0
  // Graphviz: tensors as boxes, ops as ellipses; only the entries `include` accepts, when given.
  std::string to_dot(const std::function<bool(const Entry&)>& include = nullptr) const;

  // Used by Recorder.
  void append(const std::shared_ptr<Entry>& entry);
  int64_t next_position() const { return next_position_; }

 private:
  std::vector<std::weak_ptr<Entry>> entries_;
  int64_t next_position_ = 0;
  size_t compact_at_ = 1024;
};

Tape& tape();  // this thread's tape

// How an op records itself:
//
//   Recorder rec("mul", {a, b}, {out});   // checks outputs in anomaly mode
//   if (rec) {                            // false when nothing needs a gradient or a tangent
//     rec.save("a", a).save("b", b);
//     rec.forward([&](const ForwardContext& f) -> TensorList { ... });  // the output's tangent
//     rec.backward([](const BackwardContext& ctx) -> TensorList { ... });
//   }
//
// backward(rule) takes the op's reference rule, written with tapegrad ops; an op with
// hand-written backward kernels passes them second: backward(reference, fast).
class Recorder {
 public:
  Recorder(std::string op, const TensorList& inputs, const TensorList& outputs);
  explicit operator bool() const { return entry_ != nullptr; }
  Recorder& save(std::string name, const Tensor& t);
  template <class V> Recorder& attr(std::string name, const V& value) {
    entry_->attributes.emplace_back(std::move(name), fmt::format("{}", value));
    return *this;
  }
  // Runs the forward-mode rule when an input carries a tangent (tg::jvp), else does nothing.
  template <class Rule> Recorder& forward(const Rule& rule) {
    if (!dual_inputs_.empty()) set_tangents(rule(ForwardContext(dual_inputs_, outputs_)));
    return *this;
  }
  // Commits the entry to the tape and links the outputs.
  void backward(BackwardRule reference, BackwardRule fast = nullptr);

 private:
  void set_tangents(const TensorList& tangents);
  std::shared_ptr<Entry> entry_;
  TensorList outputs_;
  TensorList dual_inputs_;  // the inputs, when one carries a tangent
  bool records_ = false;    // grad mode is on and an input requires grad
  bool tangents_set_ = false;
};

}  // namespace tg

template <> struct fmt::formatter<tg::Tape> : fmt::formatter<std::string_view> {
  auto format(const tg::Tape& tape, format_context& ctx) const -> decltype(ctx.out());
};
template <> struct fmt::formatter<tg::Entry> : fmt::formatter<std::string_view> {
  auto format(const tg::Entry& e, format_context& ctx) const -> decltype(ctx.out()) {
    return fmt::formatter<std::string_view>::format(e.str(), ctx);
  }
};
