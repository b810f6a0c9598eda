#pragma once
// Dropout: in training, zeroes each element with probability p and scales the rest by 1/(1-p)
// (ops/dropout/dropout.h); in evaluation (after eval()) it returns x itself.
// Forward hooks: inputs {x}, outputs {y} (for forward_of_relu, x before the relu).
#include "nn/module.h"

namespace tg::nn {

class Dropout : public Module {
 public:
  explicit Dropout(double p = 0.5);
  Tensor forward(const Tensor& x) const;  // draws from the global generator
  // forward(relu(x)): takes x before the relu and runs both as one fused op (ops/fused/relu_dropout),
  // with the same values and draws as the two ops
  Tensor forward_of_relu(const Tensor& x) const;
  // residual + forward(x): a residual connection's sum, as one fused op (ops/fused/dropout_add)
  // with the same values and draws as the two ops; as the two ops when the model is composed or
  // a forward hook watches this dropout (the hooks see forward(x)).
  Tensor forward_added_to(const Tensor& residual, const Tensor& x) const;

  double p;
};

}  // namespace tg::nn
