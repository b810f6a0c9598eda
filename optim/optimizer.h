#pragma once
// Optimizers update leaf tensors ("parameters") in place from their accumulated .grad(), the
// way torch.optim defines them. The base class below holds what every optimizer shares:
// parameter groups, per-parameter state, step() / zero_grad() / set_lr(), and checkpoints
// (state_dict / load_state_dict). SGD, Adam and AdamW (optim/sgd.h, optim/adam.h) add only
// their options, their state buffers and their fused update kernel.
//
//   std::vector<NamedParameter> params = {{"w", w}, {"b", b}};
//   AdamW opt(weight_decay_groups(params), {.lr = 3e-4, .weight_decay = 0.1});
//   loss.backward(); opt.step(); opt.zero_grad();
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tg {

// A parameter: a named leaf tensor (contiguous, floating, requires_grad). The name is what
// errors and checkpoints call it ("encoder.layers.0.linear1.weight").
struct NamedParameter {
  std::string name;
  Tensor tensor;
};

// Parameters that share a learning rate and weight decay. Unset values take the optimizer's
// options (as in PyTorch, a group's own value overrides the default); once the optimizer is
// built, its groups() have both set. Group names must be unique within an optimizer; an empty
// name becomes the group's index ("0", "1", ...).
struct ParamGroup {
  std::string name;
  std::vector<NamedParameter> params;
  std::optional<double> lr;
  std::optional<double> weight_decay;
};

// Checkpoint entries, in a stable order (see Optimizer::state_dict).
using StateDict = std::vector<std::pair<std::string, Tensor>>;

// The usual Transformer recipe: group "decay" (the optimizer's weight_decay) holds the
// matrices; group "no_decay" (weight_decay = 0) holds biases and other tensors with fewer than
// 2 dims, and every parameter whose name contains "norm" (any case: "ln.norm.weight",
// "LayerNorm.weight"). Both groups are always returned, in this order, possibly empty.
std::vector<ParamGroup> weight_decay_groups(const std::vector<NamedParameter>& params);

// One parameter's optimizer state: how many updates it has had, and its buffers (named by
// the optimizer's buffer_names(), each with the parameter's shape, dtype and device).
// A parameter that never had a gradient has step 0 and no buffers.
struct ParamState {
  int64_t step = 0;
  std::vector<Tensor> buffers;
};

// One parameter's part of a step: the parameter (contiguous), its gradient (same shape, dtype
// and device) and its state, with state.step already incremented and the buffers allocated
// (zeros) on its first update.
struct ParamUpdate {
  const NamedParameter& param;
  Tensor grad;
  ParamState& state;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a .grad() (the others are skipped and keep their
  // state), under NoGradGuard. Each parameter's storage version is bumped, so a tape that
  // saved it before the step refuses to run backward through it.
  void step();
  // Drops every parameter's gradient (PyTorch's set_to_none=True).
  void zero_grad();

  void set_lr(double lr);                             // every group
  void set_lr(const std::string& group, double lr);   // one group, by name
  const std::vector<ParamGroup>& groups() const { return groups_; }
  std::vector<NamedParameter> parameters() const;     // all groups, in order
  const std::string& name() const { return name_; }   // "sgd", "adam", "adamw"

  // Checkpoint, in this order (scalars are float64 tensors of shape (), steps int64):
  //   options.<option>            the optimizer's own options (momentum, beta1, eps, ...)
  //   group.<group>.lr            each group's learning rate and weight decay
  //   group.<group>.weight_decay
  //   state.<param>.step          for each parameter that has been updated: its step count
  //   state.<param>.<buffer>      and its buffers (momentum_buffer, exp_avg, exp_avg_sq)
  // The tensors are copies: later steps do not change them.
  StateDict state_dict() const;
  // Restores every entry above (options and learning rates too, as PyTorch does). The
  // entries must be exactly those this optimizer's parameters and groups call for: a missing,
  // unexpected or mis-shaped entry is a tg::Error that names it, and leaves the optimizer
  // unchanged. Buffers are copied (converted to each parameter's dtype and device).
  void load_state_dict(const StateDict& dict);

 protected:
  // Checks the parameters and fills unset group values from the defaults.
  Optimizer(std::string name, std::vector<ParamGroup> groups, double default_lr, double default_weight_decay);

  using OptionValues = std::vector<std::pair<std::string, double>>;
  virtual OptionValues options() const = 0;                    // name -> value, fixed order
  virtual void set_options(const std::map<std::string, double>& values) = 0;  // checks, then sets
  virtual std::vector<std::string> buffer_names() const = 0;  // under the current options
  // One update of the group's parameters that have a gradient, in the group's order. The GPU
  // kernels take all of a group's GPU parameters in one launch (per device and dtype).
  virtual void update(const ParamGroup& group, const std::vector<ParamUpdate>& updates) = 0;

  // The state of `param`, one of this optimizer's parameters (the same tensor, not an equal
  // one); a tg::Error otherwise. For the typed state() of each optimizer.
  const ParamState& state_of(const Tensor& param) const;

  // Throws "<optimizer>: <what> must be <rule>, got <value>" unless ok.
  void check_option(bool ok, const char* what, const char* rule, double value) const;

 private:
  std::string name_;
  std::vector<ParamGroup> groups_;
  std::vector<std::vector<ParamState>> state_;  // [group][param]
};

}  // namespace tg
