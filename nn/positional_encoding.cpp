#include "nn/positional_encoding.h"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/factories.h"
#include "nn/embedding.h"
#include "nn/init.h"
#include "ops/add/add.h"
#include "ops/fused/embedding_add_positions/embedding_add_positions.h"
#include "ops/slice/slice.h"

namespace tg::nn {

PositionalEncoding::PositionalEncoding(std::string type, int64_t max_len, int64_t d_model)
    : Module(std::move(type)), max_len(max_len), d_model(d_model) {
  if (max_len <= 0 || d_model <= 0)
    throw Error(this->type(), fmt::format("max_len and d_model must be positive, got {} and {}", max_len, d_model));
}

Tensor PositionalEncoding::forward(const Tensor& x) const {
  const ModuleScope in_module(path());
  check_defined(x, type().c_str(), "x");
  if (x.dim() < 2 || x.size(-1) != d_model || x.dtype() != table.dtype())
    throw Error(type(), fmt::format("expected x (..., T, {}) {}, got {}", d_model, dtype_name(table.dtype()),
                                    x.describe()));
  const int64_t T = x.size(-2);
  check_length(T, x);
  Tensor y = add(x, slice(table, 0, 0, T).set_name("positions"));  // (..., T, C) + (T, C): the table's first T rows
  if (has_forward_hooks()) run_forward_hooks({x}, {y});
  return y;
}

void PositionalEncoding::check_length(int64_t T, const Tensor& x) const {
  if (T > max_len)
    throw Error(type(), fmt::format("sequence length T={} exceeds max_len={} ({} {})", T, max_len,
                                    x.dtype() == kI64 ? "indices" : "x", x.describe()));
}

Tensor PositionalEncoding::forward_of_embedding(const Embedding& embedding, const Tensor& indices) const {
  if (!fusable() || !embedding.fusable()) return forward(embedding.forward(indices));
  const ModuleScope in_module(path());
  check_defined(indices, type().c_str(), "indices");
  if (indices.dim() < 1 || embedding.embedding_dim != d_model || embedding.weight.dtype() != table.dtype())
    throw Error(type(), fmt::format("expected indices (..., T) and an embedding of dim {} {}, got indices {} and an "
                                    "embedding of dim {} {}", d_model, dtype_name(table.dtype()), indices.describe(),
                                    embedding.embedding_dim, dtype_name(embedding.weight.dtype())));
  check_length(indices.size(-1), indices);
  return embedding_add_positions(indices, embedding.weight, table, embedding.padding_idx);
}

SinusoidalPositionalEncoding::SinusoidalPositionalEncoding(int64_t max_len, int64_t d_model)
    : PositionalEncoding("SinusoidalPositionalEncoding", max_len, d_model) {
  std::vector<double> pe(max_len * d_model);
  for (int64_t pos = 0; pos < max_len; ++pos)
    for (int64_t c = 0; c < d_model; ++c) {
      const double angle = pos / std::pow(10000.0, static_cast<double>(c - c % 2) / d_model);  // 2i = c - c%2
      pe[pos * d_model + c] = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  register_buffer("pe", table, tensor(pe, {max_len, d_model}), /*persistent=*/false);
}

LearnedPositionalEncoding::LearnedPositionalEncoding(int64_t max_len, int64_t d_model)
    : PositionalEncoding("LearnedPositionalEncoding", max_len, d_model) {
  register_parameter("weight", table, empty({max_len, d_model}));
  reset_parameters();
}

void LearnedPositionalEncoding::reset_own_parameters(Generator& gen) { init::normal_(table, 0, 0.02, gen); }

}  // namespace tg::nn
