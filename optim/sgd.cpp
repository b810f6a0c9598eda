#include "optim/sgd.h"

#include "core/cuda/cuda_only.h"

namespace tg {

SGD::SGD(std::vector<NamedParameter> params, const SGDOptions& options)
    : SGD(std::vector<ParamGroup>{{"", std::move(params), {}, {}}}, options) {}

SGD::SGD(std::vector<ParamGroup> groups, const SGDOptions& options)
    : Optimizer("sgd", std::move(groups), options.lr, options.weight_decay), options_(options) {
  check(options_);
}

void SGD::check(const SGDOptions& o) const {
  check_option(o.momentum >= 0, "momentum", ">= 0", o.momentum);
  check_option(o.dampening >= 0 && o.dampening <= 1, "dampening", "in [0, 1]", o.dampening);
  check_option(!o.nesterov || o.momentum > 0, "momentum", "> 0 for Nesterov momentum", o.momentum);
  check_option(!o.nesterov || o.dampening == 0, "dampening", "0 for Nesterov momentum", o.dampening);
}

Optimizer::OptionValues SGD::options() const {
  return {{"momentum", options_.momentum}, {"dampening", options_.dampening}, {"nesterov", options_.nesterov ? 1.0 : 0.0}};
}

void SGD::set_options(const std::map<std::string, double>& values) {
  SGDOptions o = options_;
  o.momentum = values.at("momentum");
  o.dampening = values.at("dampening");
  check_option(values.at("nesterov") == 0 || values.at("nesterov") == 1, "nesterov", "0 or 1", values.at("nesterov"));
  o.nesterov = values.at("nesterov") == 1;
  check(o);
  options_ = o;
}

SGDState SGD::state(const Tensor& param) const {
  const ParamState& s = state_of(param);
  return {s.step, s.buffers.empty() ? Tensor() : s.buffers[0]};
}

std::vector<std::string> SGD::buffer_names() const {
  if (options_.momentum == 0) return {};
  return {"momentum_buffer"};
}

void SGD::update(const ParamGroup& group, const std::vector<ParamUpdate>& updates) {
  std::vector<ParamUpdate> on_gpu;
  for (const ParamUpdate& u : updates) {
    if (u.param.tensor.is_cuda()) {
      on_gpu.push_back(u);
      continue;
    }
    const Tensor buf = u.state.buffers.empty() ? Tensor() : u.state.buffers[0];
    sgd_update_cpu(u.param.tensor, buf, u.grad, options_, *group.lr, *group.weight_decay, u.state.step == 1);
  }
  if (!on_gpu.empty()) TG_CUDA_ONLY(sgd_update_cuda(on_gpu, options_, *group.lr, *group.weight_decay));
}

}  // namespace tg
