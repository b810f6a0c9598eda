#pragma once
// sum: adds up elements over some dims (or all of them).
//   x (d0, ..., dn-1), dims {k...} -> out with each dim k removed (keepdim: kept as size 1)
// Forward formula and backward rule per input: TG_OP_DOC in ops/sum/sum.cpp (docs/ops.md).
#include <vector>

#include "core/tensor.h"

namespace tg {

Tensor sum(const Tensor& x);  // all elements -> shape ()
Tensor sum(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim = false);

// Reduces a broadcast gradient back to `shape`: sums the leading dims that broadcasting added
// and the dims where `shape` has size 1. Differentiable (it is sum + reshape).
Tensor sum_to(const Tensor& grad, const Shape& shape);

// Kernels: out = sum of x over the dims where out_keepdim_shape has size 1 and x does not
// (= writes), accumulated in double. out is contiguous with x's rank (keepdim layout).
void sum_forward_cpu(const Tensor& out, const Tensor& x);
void sum_forward_cuda(const Tensor& out, const Tensor& x);
// sum_forward_cpu's sum over leading dims, for fused ops with the same bits: out (width) =
// writes, out[c] = the sum over r in [0, rows) of in[r * width + c], in row order in double, as a
// worksharing loop over blocks of columns without its closing barrier (an orphaned `omp for
// nowait`: inside a parallel region the team shares the columns; outside one, this thread sums
// them all).
void sum_leading_rows_team(float* out, const float* in, int64_t rows, int64_t width);
void sum_leading_rows_team(double* out, const double* in, int64_t rows, int64_t width);

}  // namespace tg
