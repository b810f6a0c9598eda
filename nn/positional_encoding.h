#pragma once
// Positional encodings: a (max_len, d_model) table whose first T rows are added to a sequence.
//   x (..., T, d_model) -> out = x + table[0:T]       T <= max_len (else a clear error)
// Forward hooks: inputs {x}, outputs {out}.
// SinusoidalPositionalEncoding (Vaswani et al. 2017): a fixed table, a non-persistent buffer "pe"
// (it is a function of max_len and d_model, so checkpoints leave it out):
//   pe[pos, 2i]   = sin(pos / 10000^(2i / d_model))
//   pe[pos, 2i+1] = cos(pos / 10000^(2i / d_model))
// LearnedPositionalEncoding: a trained table, parameter "weight", initialised N(0, 0.02^2) as
// GPT-2's position embeddings.
#include <cstdint>

#include "nn/module.h"

namespace tg::nn {

class Embedding;

class PositionalEncoding : public Module {
 public:
  Tensor forward(const Tensor& x) const;
  // forward(embedding.forward(indices)) as one op (ops/fused/embedding_add_positions), recorded in
  // this module's scope, with the same values and gradients; as the two modules' ops when the
  // model is composed or a forward hook watches either module.
  Tensor forward_of_embedding(const Embedding& embedding, const Tensor& indices) const;

  int64_t max_len, d_model;
  Tensor table;  // (max_len, d_model): the "pe" buffer or the "weight" parameter

 protected:
  PositionalEncoding(std::string type, int64_t max_len, int64_t d_model);

 private:
  void check_length(int64_t T, const Tensor& x) const;  // T <= max_len, x named in the error
};

class SinusoidalPositionalEncoding : public PositionalEncoding {
 public:
  SinusoidalPositionalEncoding(int64_t max_len, int64_t d_model);
};

class LearnedPositionalEncoding : public PositionalEncoding {
 public:
  LearnedPositionalEncoding(int64_t max_len, int64_t d_model);

 protected:
  void reset_own_parameters(Generator& gen) override;
};

}  // namespace tg::nn
