#pragma once
// layer_norm: normalises every row of x over its trailing dims (PyTorch's F.layer_norm).
//   x (..., normalized_shape), weight/bias (normalized_shape) optional -> out like x
//   N = numel of the leading dims (rows), C = numel(normalized_shape)
//   mean = sum_c x[n,c] / C,  rstd = 1 / sqrt(sum_c (x[n,c] - mean)^2 / C + eps)   (biased variance)
//   norm = (x - mean) * rstd,  out = norm * weight + bias
// mean and rstd have x's leading dims (shape () when x has no leading dims); they are saved.
// Forward formula and backward rule per input: TG_OP_DOC in ops/layer_norm/layer_norm.cpp (docs/ops.md);
// without a weight, w = 1.
#include "core/tensor.h"

namespace tg {

Tensor layer_norm(const Tensor& x, Shape normalized_shape, const Tensor& weight = {}, const Tensor& bias = {},
                  double eps = 1e-5);

// Kernels; every tensor contiguous, all on the CPU or all on one GPU (_cuda); weight, bias
// undefined = none.
// out (N,C), mean/rstd (N) = writes; mean and variance of each row in two passes (in double for
// float64; for float32 in float, in loops that vectorise).
void layer_norm_forward_cpu(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                            const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps);
void layer_norm_forward_cuda(const Tensor& out, const Tensor& mean, const Tensor& rstd, const Tensor& x,
                             const Tensor& weight, const Tensor& bias, int64_t N, int64_t C, double eps);
// dx (N,C), dweight (C), dbias (C) = writes; an undefined one is not computed. Parallel over
// rows for dx and over columns for dweight/dbias (each column sums its rows in order: no
// races, and the same result with any number of threads). On the GPU: one block per row for
// dx, one thread per column for dweight/dbias. add_dx: dx += instead (on the CPU), with the bits
// of writing dx and adding it afterwards: a backward rule adding into a gradient already gathered.
void layer_norm_backward_cpu(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                             const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                             int64_t N, int64_t C, bool add_dx = false);
void layer_norm_backward_cuda(const Tensor& dx, const Tensor& dweight, const Tensor& dbias, const Tensor& mean,
                              const Tensor& rstd, const Tensor& dout, const Tensor& x, const Tensor& weight,
                              int64_t N, int64_t C);

}  // namespace tg
