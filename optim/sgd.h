#pragma once
// SGD with momentum, dampening, Nesterov momentum and L2 weight decay, exactly as
// torch.optim.SGD. Per parameter p with gradient grad, at update t = 1, 2, ...:
//   g = grad + weight_decay * p
//   if momentum != 0:
//     buf = g                                      (t = 1: no dampening on the first step)
//     buf = momentum * buf + (1 - dampening) * g   (t > 1)
//     g = nesterov ? g + momentum * buf : buf
//   p = p - lr * g
// State: momentum_buffer (only when momentum != 0).
#include "optim/optimizer.h"

namespace tg {

// One parameter's SGD state: a handle on the live momentum buffer (the next step() changes
// it, as PyTorch's optimizer.state[p]); undefined without momentum, and before the
// parameter's first update, when step is 0.
struct SGDState {
  int64_t step = 0;
  Tensor momentum_buffer;
};

struct SGDOptions {
  double lr = 0.01;          // default for groups without their own lr
  double momentum = 0;       // >= 0
  double dampening = 0;      // in [0, 1]
  bool nesterov = false;     // needs momentum > 0 and dampening = 0
  double weight_decay = 0;   // default for groups without their own weight_decay; >= 0
};

class SGD : public Optimizer {
 public:
  SGD(std::vector<NamedParameter> params, const SGDOptions& options = {});
  SGD(std::vector<ParamGroup> groups, const SGDOptions& options = {});
  // The options in force (lr and weight_decay: the defaults; groups() holds the live values).
  const SGDOptions& sgd_options() const { return options_; }
  SGDState state(const Tensor& param) const;  // a tg::Error unless param is one of ours

 protected:
  OptionValues options() const override;
  void set_options(const std::map<std::string, double>& values) override;
  std::vector<std::string> buffer_names() const override;
  void update(const ParamGroup& group, const std::vector<ParamUpdate>& updates) override;

 private:
  void check(const SGDOptions& o) const;
  SGDOptions options_;
};

// Kernels: one SGD update of a contiguous parameter, in place (formula above), every tensor
// on the CPU:
//   param (n)            p  -= lr * g      (in place)
//   momentum_buffer (n)  buf = ...         (= writes; undefined when momentum == 0)
//   grad (n)             read only
void sgd_update_cpu(const Tensor& param, const Tensor& momentum_buffer, const Tensor& grad,
                    const SGDOptions& options, double lr, double weight_decay, bool first_step);
// The same for a group's parameters on GPUs (state buffer momentum_buffer when momentum != 0;
// each its own step), one launch per device and dtype (optim/multi_tensor_cuda.cuh).
void sgd_update_cuda(const std::vector<ParamUpdate>& updates, const SGDOptions& options, double lr,
                     double weight_decay);

}  // namespace tg
