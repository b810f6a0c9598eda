#include "nn/feed_forward.h"

#include "ops/gelu/gelu.h"
#include "ops/relu/relu.h"

namespace tg::nn {

Tensor activate(const Tensor& x, Activation activation) {
  return activation == Activation::relu ? relu(x) : gelu(x, GeluApprox::none);
}

Tensor linear_activate_and_drop(const Tensor& x, const Linear& linear, Activation activation, const Dropout& dropout,
                                bool fuse_relu_dropout) {
  if (activation == Activation::relu && fuse_relu_dropout) return linear.forward_relu_dropout(x, dropout);
  return dropout.forward(activate(linear.forward(x), activation));
}

FeedForward::FeedForward(int64_t d_model, int64_t d_ff, Activation activation, double dropout)
    : Module("FeedForward"), activation(activation) {
  linear1 = register_module("linear1", std::make_shared<Linear>(d_model, d_ff));
  this->dropout = register_module("dropout", std::make_shared<Dropout>(dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(d_ff, d_model));
}

Tensor FeedForward::forward(const Tensor& x) const {
  const ModuleScope in_module(path());
  const bool fuse = fuse_relu_dropout && !is_composed();
  Tensor y = linear2->forward(linear_activate_and_drop(x, *linear1, activation, *dropout, fuse));
  if (has_forward_hooks()) run_forward_hooks({x}, {y});
  return y;
}

}  // namespace tg::nn
