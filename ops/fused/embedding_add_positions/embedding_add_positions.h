#pragma once
// embedding_add_positions: embedding(indices, weight) + positions[0:T], a Transformer's input
// (token embeddings plus position embeddings), as one op: one parallel region forward and one
// backward where embedding, slice and add take two each way. The values and gradients are those
// of the three ops (ops/embedding, ops/slice, ops/add), bit for bit on the CPU.
//   indices (..., T) int64, weight (V, C), positions (P, C) with P >= T, one dtype and device
//   -> out (..., T, C) contiguous
//   out[..., t, c] = weight[indices[..., t], c] + positions[t, c]
// padding_idx as embedding's: that row of weight gets no gradient.
// Forward formula and backward rule per input: TG_OP_DOC in
// ops/fused/embedding_add_positions/embedding_add_positions.cpp (docs/ops.md).
// Saved: indices. Derivative: dweight as embedding's; dpositions[t] = the sum of grad[..., t, :]
// over the leading dims (in row order, in double, as sum_to), rows T..P-1 zero.
// nn::PositionalEncoding::forward_of_embedding runs it unless the model is composed or a forward
// hook watches the embedding or the encoding.
#include <cstdint>

#include "core/tensor.h"

namespace tg {

Tensor embedding_add_positions(const Tensor& indices, const Tensor& weight, const Tensor& positions,
                               int64_t padding_idx = -1);

// The backward kernel on the CPU (the forward is embedding_forward_cpu with the positions):
// dweight (V, C) += embedding's backward and dpositions (P, C) = the sums over positions t < T
// (rows T.. zero), in one parallel region (dweight, dpositions, dout contiguous).
void embedding_add_positions_backward_cpu(const Tensor& dweight, const Tensor& dpositions, const Tensor& dout,
                                          const Tensor& indices, int64_t T, int64_t padding_idx);

}  // namespace tg
