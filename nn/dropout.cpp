#include "nn/dropout.h"

#include <fmt/format.h>

#include "ops/add/add.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/dropout_add/dropout_add.h"
#include "ops/fused/relu_dropout/relu_dropout.h"

namespace tg::nn {

Dropout::Dropout(double p) : Module("Dropout"), p(p) {
  if (!(p >= 0 && p <= 1)) throw Error("Dropout", fmt::format("p must be in [0, 1], got {}", p));
}

Tensor Dropout::forward(const Tensor& x) const {
  const ModuleScope in_module(path());
  Tensor y = dropout(x, p, is_training());
  if (has_forward_hooks()) run_forward_hooks({x}, {y});
  return y;
}

Tensor Dropout::forward_of_relu(const Tensor& x) const {
  const ModuleScope in_module(path());
  Tensor y = relu_dropout(x, p, is_training());
  if (has_forward_hooks()) run_forward_hooks({x}, {y});
  return y;
}

Tensor Dropout::forward_added_to(const Tensor& residual, const Tensor& x) const {
  if (!fusable()) return add(residual, forward(x));
  const ModuleScope in_module(path());
  return dropout_add(residual, x, p, is_training());
}

}  // namespace tg::nn
