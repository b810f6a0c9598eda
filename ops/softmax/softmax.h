#pragma once
// softmax: exponentials normalised to sum to 1 along one dim.
//   x (..., n, ...) -> out (same shape), each row along `dim` sums to 1
//   out_j = exp(x_j - m) / sum_k exp(x_k - m),   m = max_k x_k
// Subtracting the row max changes nothing mathematically and keeps exp from overflowing:
// rows like (1000, 1001, 1002) give the same values as (0, 1, 2). Accumulation is in double.
// Forward formula and backward rule per input: TG_OP_DOC in ops/softmax/softmax.cpp (docs/ops.md).
// Derivation: dy_k/dx_i = y_k (delta_ki - y_i), so dx_i = sum_k g_k y_k (delta_ki - y_i)
//             = y_i g_i - y_i sum_k g_k y_k.
//
// Fully masked rows: a row whose elements are all -inf (every key masked out, e.g. the query
// of a padding position) gives out = 0 everywhere and dx = 0, where PyTorch gives NaN (0/0).
// A padded batch therefore never poisons training with NaN. A NaN or +inf anywhere in a row
// still gives a NaN row, so real numerical bugs stay visible.
#include <cstdint>

#include "core/tensor.h"

namespace tg {

Tensor softmax(const Tensor& x, int64_t dim = -1);

// Kernels on contiguous (outer, dim_size, inner) tensors, one row per (outer, inner) pair
// (ops/common/dim_rows.h); OpenMP over rows on the CPU, one block per row on the GPU (_cuda: all
// tensors on one GPU).
// out = softmax(inp) along dim_size (= writes).
void softmax_forward_cpu(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner);
void softmax_forward_cuda(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner);
// dinp = out * (dout - sum(dout * out)) (= writes).
void softmax_backward_cpu(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                          int64_t dim_size, int64_t inner);
void softmax_backward_cuda(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                           int64_t dim_size, int64_t inner);

}  // namespace tg
