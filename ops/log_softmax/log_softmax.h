#pragma once
// log_softmax: the log of softmax along one dim, computed without forming softmax.
//   x (..., n, ...) -> out (same shape)
//   out_j = (x_j - m) - log(sum_k exp(x_k - m)),   m = max_k x_k
// Stable where log(softmax(x)) is not: a tiny probability underflows to 0 and its log to -inf,
// but x_j - m - log(...) stays finite; rows of +-1000 stay exact. Accumulation is in double.
// Forward formula and backward rule per input: TG_OP_DOC in ops/log_softmax/log_softmax.cpp (docs/ops.md).
// Derivation: dy_k/dx_i = delta_ki - softmax_i and softmax_i = exp(y_i).
//
// Masked elements (-inf in x) give out = -inf and dx_i = g_i there (the exact derivative;
// masked_fill's backward then zeroes it). Fully masked rows (all -inf): out = -inf everywhere
// and dx = 0, where PyTorch gives NaN; no NaN ever appears for them. A NaN or +inf anywhere
// in a row still gives a NaN row.
#include <cstdint>

#include "core/tensor.h"

namespace tg {

Tensor log_softmax(const Tensor& x, int64_t dim = -1);

// Kernels on contiguous (outer, dim_size, inner) tensors, one row per (outer, inner) pair
// (ops/common/dim_rows.h); OpenMP over rows on the CPU, one block per row on the GPU (_cuda: all
// tensors on one GPU).
// out = log_softmax(inp) along dim_size (= writes).
void log_softmax_forward_cpu(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner);
void log_softmax_forward_cuda(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner);
// dinp = dout - exp(out) * sum(dout) (= writes); 0 on rows where out is all -inf.
void log_softmax_backward_cpu(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                              int64_t dim_size, int64_t inner);
void log_softmax_backward_cuda(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer,
                               int64_t dim_size, int64_t inner);

}  // namespace tg
