#include "optim/adam.h"

#include "core/cuda/cuda_only.h"

namespace tg {

Adam::Adam(std::vector<NamedParameter> params, const AdamOptions& options)
    : Adam("adam", {{"", std::move(params), {}, {}}}, options, false) {}

Adam::Adam(std::vector<ParamGroup> groups, const AdamOptions& options)
    : Adam("adam", std::move(groups), options, false) {}

Adam::Adam(const char* name, std::vector<ParamGroup> groups, const AdamOptions& options, bool decoupled)
    : Optimizer(name, std::move(groups), options.lr, options.weight_decay), options_(options), decoupled_(decoupled) {
  check(options_);
}

namespace {
AdamOptions as_adam(const AdamWOptions& o) { return {o.lr, o.beta1, o.beta2, o.eps, o.weight_decay}; }
}  // namespace

AdamW::AdamW(std::vector<NamedParameter> params, const AdamWOptions& options)
    : Adam("adamw", {{"", std::move(params), {}, {}}}, as_adam(options), true) {}

AdamW::AdamW(std::vector<ParamGroup> groups, const AdamWOptions& options)
    : Adam("adamw", std::move(groups), as_adam(options), true) {}

void Adam::check(const AdamOptions& o) const {
  check_option(o.beta1 >= 0 && o.beta1 < 1, "beta1", "in [0, 1)", o.beta1);
  check_option(o.beta2 >= 0 && o.beta2 < 1, "beta2", "in [0, 1)", o.beta2);
  check_option(o.eps > 0, "eps", "> 0", o.eps);
}

Optimizer::OptionValues Adam::options() const {
  return {{"beta1", options_.beta1}, {"beta2", options_.beta2}, {"eps", options_.eps}};
}

void Adam::set_options(const std::map<std::string, double>& values) {
  AdamOptions o = options_;
  o.beta1 = values.at("beta1");
  o.beta2 = values.at("beta2");
  o.eps = values.at("eps");
  check(o);
  options_ = o;
}

AdamState Adam::state(const Tensor& param) const {
  const ParamState& s = state_of(param);
  if (s.step == 0) return {};
  return {s.step, s.buffers[0], s.buffers[1]};
}

std::vector<std::string> Adam::buffer_names() const { return {"exp_avg", "exp_avg_sq"}; }

void Adam::update(const ParamGroup& group, const std::vector<ParamUpdate>& updates) {
  std::vector<ParamUpdate> on_cpu, on_gpu;
  for (const ParamUpdate& u : updates) (u.param.tensor.is_cuda() ? on_gpu : on_cpu).push_back(u);
  if (!on_cpu.empty()) adam_update_cpu(on_cpu, options_, *group.lr, *group.weight_decay, decoupled_);
  if (!on_gpu.empty()) TG_CUDA_ONLY(adam_update_cuda(on_gpu, options_, *group.lr, *group.weight_decay, decoupled_));
}

}  // namespace tg
