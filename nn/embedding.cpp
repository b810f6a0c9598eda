#include "nn/embedding.h"

#include <fmt/format.h>

#include "core/factories.h"
#include "nn/init.h"
#include "ops/embedding/embedding.h"
#include "ops/slice/slice.h"

namespace tg::nn {

Embedding::Embedding(int64_t num_embeddings, int64_t embedding_dim, int64_t padding_idx)
    : Module("Embedding"), num_embeddings(num_embeddings), embedding_dim(embedding_dim), padding_idx(padding_idx) {
  if (num_embeddings <= 0 || embedding_dim <= 0)
    throw Error("Embedding", fmt::format("num_embeddings and embedding_dim must be positive, got {} and {}",
                                         num_embeddings, embedding_dim));
  if (padding_idx < -1 || padding_idx >= num_embeddings)
    throw Error("Embedding", fmt::format("padding_idx must be -1 (none) or in [0, {}), got {}", num_embeddings,
                                         padding_idx));
  register_parameter("weight", weight, empty({num_embeddings, embedding_dim}));
  reset_parameters();
}

void Embedding::reset_own_parameters(Generator& gen) {
  init::normal_(weight, 0, 1, gen);
  if (padding_idx >= 0) init::zeros_(slice_view(weight, 0, padding_idx, padding_idx + 1));
}

Tensor Embedding::forward(const Tensor& indices) const {
  const ModuleScope in_module(path());
  Tensor y = embedding(indices, weight, padding_idx);
  if (has_forward_hooks()) run_forward_hooks({indices}, {y});
  return y;
}

}  // namespace tg::nn
