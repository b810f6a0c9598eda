#include "nn/layer_norm.h"

#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "nn/dropout.h"
#include "nn/init.h"
#include "ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.h"
#include "ops/layer_norm/layer_norm.h"

namespace tg::nn {

LayerNorm::LayerNorm(Shape normalized_shape, double eps, bool elementwise_affine)
    : Module("LayerNorm"), normalized_shape(std::move(normalized_shape)), eps(eps) {
  bool positive = !this->normalized_shape.empty();
  for (int64_t s : this->normalized_shape) positive &= s > 0;
  if (!positive || !(std::isfinite(eps) && eps >= 0))
    throw Error("LayerNorm", fmt::format("needs a non-empty normalized_shape of positive sizes and eps >= 0, got "
                                         "{} and eps {}", shape_str(this->normalized_shape), eps));
  if (elementwise_affine) {
    register_parameter("weight", weight, empty(this->normalized_shape));
    register_parameter("bias", bias, empty(this->normalized_shape));
  }
  reset_parameters();
}

void LayerNorm::reset_own_parameters(Generator& /*gen*/) {
  if (!weight.defined()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNorm::forward(const Tensor& x) const {
  const ModuleScope in_module(path());
  Tensor y = layer_norm(x, normalized_shape, weight, bias, eps);
  if (has_forward_hooks()) run_forward_hooks({x}, {y});
  return y;
}

Tensor LayerNorm::forward_of_dropout_add(const Tensor& residual, const Tensor& x, const Dropout& dropout) const {
  if (!fusable() || !dropout.fusable())
    return forward(dropout.forward_added_to(residual, x));
  const ModuleScope in_module(path());
  return dropout_add_layer_norm(residual, x, dropout.p, dropout.is_training(), normalized_shape, weight, bias, eps);
}

}  // namespace tg::nn
