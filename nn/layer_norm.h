#pragma once
// LayerNorm: normalises over the trailing normalized_shape dims, then scales and shifts
// (PyTorch's nn.LayerNorm; the formula and its backward are in ops/layer_norm/layer_norm.h).
//   x (..., normalized_shape) -> out like x
//   weight, bias (normalized_shape) when elementwise_affine, else none
// Initialisation (reset_own_parameters): weight ones, bias zeros (the identity affine map).
#include "nn/module.h"

namespace tg::nn {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  Tensor forward(const Tensor& x) const;  // forward hooks: inputs {x}, outputs {y}

  Shape normalized_shape;
  double eps;
  Tensor weight, bias;  // undefined without elementwise_affine

 protected:
  void reset_own_parameters(Generator& gen) override;
};

}  // namespace tg::nn
