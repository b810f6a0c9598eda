#pragma once
// embedding: looks up rows of a table by integer index (token ids -> vectors).
//   indices (I...) int64, weight (V, C) -> out (I..., C)
//   out[i..., c] = weight[indices[i...], c]
// indices and weight share a device. Every index must lie in [0, V) (checked on the host:
// CUDA indices are copied there first). padding_idx is -1 (none) or a row in [0, V); unlike
// PyTorch, a negative padding_idx does not count from the end. It changes only the derivative:
// that row of weight is held constant (no gradient; in forward mode, no tangent).
// Forward formula and backward rule per input: TG_OP_DOC in ops/embedding/embedding.cpp (docs/ops.md).
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tg {

Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx = -1);

// Shared with embedding_add_positions (ops/fused/): the errors for bad indices, weight or
// padding_idx, naming `op`; the forward-mode rule (the rows of weight's tangent, 0 for the
// padding row); the reference rule's dweight (V, C) for grad (indices' shape, C), with ops.
void check_embedding_args(const Tensor& indices, const Tensor& weight, int64_t padding_idx, const char* op);
Tensor embedding_tangent(const Tensor& indices, const Tensor& tangent, int64_t padding_idx);
Tensor embedding_reference_dweight(const Tensor& indices, const Tensor& grad, const Shape& weight_shape,
                                   int64_t padding_idx);

// Kernels (N = indices.numel(), all indices already checked to lie in [0, V)), all tensors on
// the CPU or all on one GPU (_cuda):
// out (N, C) contiguous = weight[indices[n]] (= writes); indices contiguous; weight any strides.
// On the CPU, with positions (P, C) (any strides; N a multiple of T, T <= P): + positions[n % T]
// in the same pass, embedding_add_positions' forward (add's order: x + table).
void embedding_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& weight,
                           const Tensor& positions = {}, int64_t T = 0);
void embedding_forward_cuda(const Tensor& out, const Tensor& indices, const Tensor& weight);
// dweight (V, C) contiguous += rows of dout (N, C) contiguous, skipping padding_idx
// (+= accumulates). CPU: grouped by index, in a fixed order; GPU: atomicAdd, in any order.
void embedding_backward_cpu(const Tensor& dweight, const Tensor& dout, const Tensor& indices, int64_t padding_idx);
// embedding_backward_cpu in two pieces, for fused ops with the same bits: IndexGroups sorts the
// positions by index on the calling thread; embedding_backward_team adds the rows as a
// worksharing loop without its closing barrier (an orphaned `omp for nowait`: inside a parallel
// region the team shares the rows of dweight; outside one, the calling thread adds them all).
struct IndexGroups {
  IndexGroups(const Tensor& indices, int64_t V);
  std::vector<int64_t> start, order;  // the positions n with indices[n] == v: order[start[v] .. start[v+1])
};
void embedding_backward_team(const Tensor& dweight, const Tensor& dout, const IndexGroups& groups,
                             int64_t padding_idx);
void embedding_backward_cuda(const Tensor& dweight, const Tensor& dout, const Tensor& indices, int64_t padding_idx);

}  // namespace tg
