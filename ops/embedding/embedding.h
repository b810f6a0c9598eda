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

#include "core/tensor.h"

namespace tg {

Tensor embedding(const Tensor& indices, const Tensor& weight, int64_t padding_idx = -1);

// Kernels (N = indices.numel(), all indices already checked to lie in [0, V)), all tensors on
// the CPU or all on one GPU (_cuda):
// out (N, C) contiguous = weight[indices[n]] (= writes); indices contiguous; weight any strides.
void embedding_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& weight);
void embedding_forward_cuda(const Tensor& out, const Tensor& indices, const Tensor& weight);
// dweight (V, C) contiguous += rows of dout (N, C) contiguous, skipping padding_idx
// (+= accumulates). CPU: grouped by index, in a fixed order; GPU: atomicAdd, in any order.
void embedding_backward_cpu(const Tensor& dweight, const Tensor& dout, const Tensor& indices, int64_t padding_idx);
void embedding_backward_cuda(const Tensor& dweight, const Tensor& dout, const Tensor& indices, int64_t padding_idx);

}  // namespace tg
