#pragma once
// Linear: y = x W^T + b (PyTorch's nn.Linear).
//   x (..., in_features) -> y (..., out_features)
//   weight (out_features, in_features), bias (out_features) or none
// One fused linear op (ops/fused/linear); on the composed path (set_composed) the ops
// transpose(weight), matmul and add, each on the tape. Forward hooks: inputs {x}, outputs {y}.
// Initialisation (reset_own_parameters): weight Xavier uniform, U(-b, b) with
// b = sqrt(6 / (in + out)); bias zeros. PyTorch's nn.Linear draws the weight with
// kaiming_uniform(a = sqrt(5)), i.e. U(-1/sqrt(in), 1/sqrt(in)), and the bias from the same
// range; tapegrad follows the project's spec (Xavier for linear and attention weights, zero
// biases) and keeps every scheme in nn/init.
#include <cstdint>

#include "nn/module.h"

namespace tg::nn {

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) const;

  int64_t in_features, out_features;
  Tensor weight, bias;  // bias undefined when built without one

 protected:
  void reset_own_parameters(Generator& gen) override;
};

}  // namespace tg::nn
