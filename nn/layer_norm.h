#pragma once
// LayerNorm: normalises over the trailing normalized_shape dims, then scales and shifts
// (PyTorch's nn.LayerNorm; the formula and its backward are in ops/layer_norm/layer_norm.h).
//   x (..., normalized_shape) -> out like x
//   weight, bias (normalized_shape) when elementwise_affine, else none
// Initialisation (reset_own_parameters): weight ones, bias zeros (the identity affine map).
#include "nn/module.h"

namespace tg::nn {

class Dropout;

class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor forward(const Tensor& x) const;  // forward hooks: inputs {x}, outputs {y}
  // forward(dropout.forward_added_to(residual, x)): a post-LN residual connection and its norm, as
  // one fused op (ops/fused/dropout_add_layer_norm) with the same values and draws as the ops;
  // as those ops when the model is composed or a forward hook watches this norm or the dropout.
  Tensor forward_of_dropout_add(const Tensor& residual, const Tensor& x, const Dropout& dropout) const;

  Shape normalized_shape;
  double eps;
  Tensor weight, bias;  // undefined without elementwise_affine

 protected:
  void reset_own_parameters(Generator& gen) override;
};

}  // namespace tg::nn
