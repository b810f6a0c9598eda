#include "nn/linear.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/factories.h"
#include "nn/dropout.h"
#include "nn/init.h"
#include "nn/layer_norm.h"
#include "ops/add/add.h"
#include "ops/fused/linear/linear.h"
#include "ops/fused/linear_dropout_add/linear_dropout_add.h"
#include "ops/fused/linear_dropout_add_layer_norm/linear_dropout_add_layer_norm.h"
#include "ops/fused/linear_relu/linear_relu.h"
#include "ops/fused/linear_relu_dropout/linear_relu_dropout.h"
#include "ops/matmul/matmul.h"
#include "ops/transpose/transpose.h"

namespace tg::nn {

Linear::Linear(int64_t in_features, int64_t out_features, bool bias)
    : Module("Linear"), in_features(in_features), out_features(out_features) {
  if (in_features <= 0 || out_features <= 0)
    throw Error("Linear", fmt::format("in_features and out_features must be positive, got {} and {}", in_features,
                                      out_features));
  register_parameter("weight", weight, empty({out_features, in_features}));
  if (bias) register_parameter("bias", this->bias, empty({out_features}));
  reset_parameters();
}

void Linear::reset_own_parameters(Generator& gen) {
  init::xavier_uniform_(weight, 1, gen);
  if (bias.defined()) init::zeros_(bias);
}

void Linear::check_input(const Tensor& x) const {
  check_defined(x, "Linear", "x");
  if (x.dim() == 0 || x.size(-1) != in_features || x.dtype() != weight.dtype())
    throw Error("Linear", fmt::format("expected x (..., {}) {}, got {}", in_features, dtype_name(weight.dtype()),
                                      x.describe()));
}

Tensor Linear::forward(const Tensor& x) const {
  const ModuleScope in_module(path());
  check_input(x);
  // (..., in) @ (in, out) + (out) -> (..., out): one linear op, or matmul, transpose and add composed
  Tensor y = !is_composed()       ? linear(x, weight, bias)
             : bias.defined()     ? add(matmul(x, transpose(weight, 0, 1)), bias)
                                  : matmul(x, transpose(weight, 0, 1));
  if (has_forward_hooks()) run_forward_hooks({x}, {y});
  return y;
}

Tensor Linear::forward_relu_dropout(const Tensor& x, const Dropout& dropout) const {
  if (!fusable() || !dropout.fusable()) return dropout.forward_of_relu(forward(x));
  const ModuleScope in_module(path());
  check_input(x);
  if (!dropout.is_training() || dropout.p == 0) return linear_relu(x, weight, bias);  // nothing to draw
  return linear_relu_dropout(x, weight, bias, dropout.p, true);
}

Tensor Linear::forward_dropout_add_norm(const Tensor& x, const Tensor& residual, const Dropout& dropout,
                                        const LayerNorm& norm) const {
  if (!fusable() || !dropout.fusable() || !norm.fusable() || !dropout.is_training() || dropout.p == 0)
    return norm.forward_of_dropout_add(residual, forward(x), dropout);
  const ModuleScope in_module(path());
  check_input(x);
  return linear_dropout_add_layer_norm(x, weight, bias, residual, dropout.p, true, norm.normalized_shape, norm.weight,
                                       norm.bias, norm.eps);
}

Tensor Linear::forward_dropout_add(const Tensor& x, const Tensor& residual, const Dropout& dropout) const {
  if (!fusable() || !dropout.fusable()) return dropout.forward_added_to(residual, forward(x));
  const ModuleScope in_module(path());
  check_input(x);
  return linear_dropout_add(x, weight, bias, residual, dropout.p, dropout.is_training());
}

Tensor LinearOutput::output() const { return layer ? layer->forward(x) : x; }

TensorList Linear::forward_together(std::span<const Linear* const> layers, const Tensor& x) {
  const bool one_by_one = std::any_of(layers.begin(), layers.end(), [](const Linear* layer) {
    return !layer->fusable();
  });
  if (one_by_one) return {};
  TensorList ys;
  for (const Linear* layer : layers) {
    layer->check_input(x);
    ys.push_back(empty(linear_output_shape(x, layer->weight), x.dtype(), x.device()));
  }
  forward_together_into(layers, x, ys, {});
  return ys;
}

void Linear::forward_together_into(std::span<const Linear* const> layers, const Tensor& x, const TensorList& ys,
                                   GemmSideWorks side) {
  TensorList weights, biases;
  for (const Linear* layer : layers) {
    if (!layer->fusable())
      throw Error("Linear", fmt::format("forward_together_into runs fusable layers only; {} is composed or hooked",
                                        *layer->path()));
    layer->check_input(x);
    weights.push_back(layer->weight);
    biases.push_back(layer->bias);
  }
  linear_outputs_into(ys, x, weights, biases, side);
  for (size_t i = 0; i < layers.size(); ++i) {
    const ModuleScope in_module(layers[i]->path());
    record_linear(x, weights[i], biases[i], ys[i]);
  }
}

}  // namespace tg::nn
