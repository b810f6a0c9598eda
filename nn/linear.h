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
#include <span>

#include "nn/module.h"
#include "ops/matmul/gemm_cpu.h"

namespace tg::nn {

class Dropout;
class LayerNorm;
class Linear;

// A block's output not yet computed: layer->forward(x), or x itself where layer is null. A block
// that ends in a linear layer (attention's out_proj, a feed-forward's second layer) returns it so,
// for the residual connection to run the layer with its dropout and sum (and, post-LN, its norm)
// as one op (Linear::forward_dropout_add, Linear::forward_dropout_add_norm; nn/transformer_block.h's
// residual).
struct LinearOutput {
  const Linear* layer = nullptr;
  Tensor x;
  Tensor output() const;
};

class Linear : public Module {
 public:
  Linear(int64_t in_features, int64_t out_features, bool bias = true);
  Tensor forward(const Tensor& x) const;
  // Each layer's forward on one x (1 to 3 layers: the q, k and v projections of self-attention),
  // their products computed together (linear_outputs: one parallel region on the CPU), each
  // recorded as its own linear entry in its own scope, with the bits of its forward alone. Empty
  // where a layer is composed or has forward hooks: the caller then runs each layer's forward.
  static TensorList forward_together(std::span<const Linear* const> layers, const Tensor& x);
  // The same into ys (contiguous, made by the caller: x's shape with each layer's out_features
  // last), with side work in the products' region (fused attention's kernel after the q, k and v
  // projections: nn::MultiHeadAttention). Every layer must be fusable().
  static void forward_together_into(std::span<const Linear* const> layers, const Tensor& x, const TensorList& ys,
                                    GemmSideWorks side);
  // dropout.forward_of_relu(forward(x)) as one op (ops/fused/linear_relu_dropout; linear_relu where
  // the dropout does not draw: eval, p = 0), recorded in this layer's scope, with the same values
  // and draws; as the two when the model is composed or a forward hook watches this layer or the
  // dropout.
  Tensor forward_relu_dropout(const Tensor& x, const Dropout& dropout) const;
  // norm.forward_of_dropout_add(residual, forward(x), dropout) as one op
  // (ops/fused/linear_dropout_add_layer_norm), recorded in this layer's scope, with the same values
  // and draws; as the two when the model is composed, a forward hook watches this layer, the
  // dropout or the norm, or the dropout does not draw (eval, p = 0).
  Tensor forward_dropout_add_norm(const Tensor& x, const Tensor& residual, const Dropout& dropout,
                                  const LayerNorm& norm) const;
  // dropout.forward_added_to(residual, forward(x)) as one op (ops/fused/linear_dropout_add),
  // recorded in this layer's scope, with the same values and draws (in eval and at p = 0 too: the
  // sum alone); as the two when the model is composed or a forward hook watches this layer or the
  // dropout.
  Tensor forward_dropout_add(const Tensor& x, const Tensor& residual, const Dropout& dropout) const;

  int64_t in_features, out_features;
  Tensor weight, bias;  // bias undefined when built without one

 protected:
  void reset_own_parameters(Generator& gen) override;

 private:
  void check_input(const Tensor& x) const;  // x (..., in_features) of the weight's dtype
};

}  // namespace tg::nn
