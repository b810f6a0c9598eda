#pragma once
// Embedding: a table of num_embeddings vectors looked up by index (PyTorch's nn.Embedding).
//   indices (I...) int64 -> out (I..., embedding_dim)
//   weight (num_embeddings, embedding_dim)
// padding_idx (-1 = none, else a row in [0, num_embeddings)): that row is initialised to zeros
// and never receives a gradient, so it stays zero under training (PyTorch's semantics; unlike
// PyTorch a negative padding_idx does not count from the end).
// Initialisation (reset_own_parameters): weight N(0, 1) as PyTorch, the padding row zeros.
#include <cstdint>

#include "nn/module.h"

namespace tg::nn {

class Embedding : public Module {
 public:
  Embedding(int64_t num_embeddings, int64_t embedding_dim, int64_t padding_idx = -1);
  Tensor forward(const Tensor& indices) const;  // forward hooks: inputs {indices}, outputs {rows}

  int64_t num_embeddings, embedding_dim, padding_idx;
  Tensor weight;

 protected:
  void reset_own_parameters(Generator& gen) override;
};

}  // namespace tg::nn
