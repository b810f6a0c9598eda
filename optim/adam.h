#pragma once
// Adam and AdamW, exactly as torch.optim.Adam / torch.optim.AdamW (amsgrad and maximize are
// not offered). Per parameter p with gradient grad, at update t = 1, 2, ...:
//   Adam:   g = grad + weight_decay * p          (L2 penalty folded into the gradient)
//   AdamW:  g = grad;  p = p * (1 - lr * weight_decay)   (decoupled decay, applied first)
//   m = beta1 * m + (1 - beta1) * g               (exp_avg)
//   v = beta2 * v + (1 - beta2) * g * g           (exp_avg_sq)
//   denom = sqrt(v) / sqrt(1 - beta2^t) + eps     (eps added after the bias correction)
//   p = p - lr / (1 - beta1^t) * m / denom
// State: exp_avg, exp_avg_sq (and the step t).
#include "optim/optimizer.h"

namespace tg {

// One parameter's Adam(W) state: handles on the live buffers (the next step() changes them, as
// PyTorch's optimizer.state[p]); before the parameter's first update step is 0 and the
// buffers are undefined.
struct AdamState {
  int64_t step = 0;
  Tensor exp_avg;     // m
  Tensor exp_avg_sq;  // v
};

struct AdamOptions {
  double lr = 1e-3;          // default for groups without their own lr
  double beta1 = 0.9;        // in [0, 1)
  double beta2 = 0.999;      // in [0, 1)
  double eps = 1e-8;         // > 0
  double weight_decay = 0;   // default for groups without their own weight_decay; >= 0
};

class Adam : public Optimizer {
 public:
  Adam(std::vector<NamedParameter> params, const AdamOptions& options = {});
  Adam(std::vector<ParamGroup> groups, const AdamOptions& options = {});
  // The options in force (lr and weight_decay: the defaults; groups() holds the live values).
  const AdamOptions& adam_options() const { return options_; }
  AdamState state(const Tensor& param) const;  // a tg::Error unless param is one of ours

 protected:
  Adam(const char* name, std::vector<ParamGroup> groups, const AdamOptions& options, bool decoupled);
  OptionValues options() const override;
  void set_options(const std::map<std::string, double>& values) override;
  std::vector<std::string> buffer_names() const override;
  void update(const ParamGroup& group, const std::vector<ParamUpdate>& updates) override;

 private:
  void check(const AdamOptions& o) const;
  AdamOptions options_;
  bool decoupled_;  // AdamW
};

// AdamW's options: Adam's, but weight_decay defaults to 0.01 (as in PyTorch).
struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;
};

class AdamW : public Adam {
 public:
  AdamW(std::vector<NamedParameter> params, const AdamWOptions& options = {});
  AdamW(std::vector<ParamGroup> groups, const AdamWOptions& options = {});
};

// Kernels: one Adam(W) update of each of a group's contiguous parameters at its own step t, in
// place (formula above). For each update, every tensor (n) and state buffers exp_avg, exp_avg_sq:
//   param (n)        p = ...   (in place)
//   exp_avg (n)      m = ...   (in place)
//   exp_avg_sq (n)   v = ...   (in place)
//   grad (n)         read only
// On the CPU all of them in one OpenMP parallel region (multi-tensor); on GPUs one launch per
// device and dtype (optim/multi_tensor_cuda.cuh).
void adam_update_cpu(const std::vector<ParamUpdate>& updates, const AdamOptions& options, double lr,
                     double weight_decay, bool decoupled);
void adam_update_cuda(const std::vector<ParamUpdate>& updates, const AdamOptions& options, double lr,
                      double weight_decay, bool decoupled);

}  // namespace tg
