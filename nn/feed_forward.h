#pragma once
// FeedForward: the position-wise MLP of a Transformer block.
//   x (..., d_model) -> linear1 (..., d_ff) -> activation -> dropout -> linear2 (..., d_model)
// (linear1 -> relu -> dropout as one linear_relu_dropout op unless fuse_relu_dropout is false or
// the module is composed: set_composed). Forward hooks: inputs {x}, outputs {y}.
// Children: linear1, dropout, linear2 (initialised as Linear: Xavier uniform weights, zero biases).
#include <cstdint>
#include <memory>

#include "nn/dropout.h"
#include "nn/linear.h"
#include "nn/module.h"

namespace tg::nn {

enum class Activation { relu, gelu };  // gelu: the exact (erf) form, as PyTorch's "gelu"

Tensor activate(const Tensor& x, Activation activation);
// dropout(activate(linear(x), activation)); a relu with fuse_relu_dropout as one op
// (Linear::forward_relu_dropout: the same values and draws in one parallel region instead of
// three, forward and backward).
Tensor linear_activate_and_drop(const Tensor& x, const Linear& linear, Activation activation, const Dropout& dropout,
                                bool fuse_relu_dropout);

class FeedForward : public Module {
 public:
  FeedForward(int64_t d_model, int64_t d_ff, Activation activation = Activation::relu, double dropout = 0);
  Tensor forward(const Tensor& x) const;

  Activation activation;
  bool fuse_relu_dropout = true;  // false: linear1, relu and dropout as three tape entries, to step through
  std::shared_ptr<Linear> linear1;
  std::shared_ptr<Dropout> dropout;
  std::shared_ptr<Linear> linear2;
};

}  // namespace tg::nn
