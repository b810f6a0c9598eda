#pragma once
// Shared by softmax and log_softmax: ops that map each row along `dim` (ops/common/dim_rows.h) to
// a row of the same length, and whose derivative needs only the output. Each op keeps its
// formula, kernels and rules in its own folder and hands them here.
#include <cstdint>

#include "core/tensor.h"

namespace tg {

// One device's kernels on contiguous (outer, dim_size, inner) tensors, all on that device.
struct RowKernels {
  // out = op(inp) along dim_size (= writes).
  void (*forward)(const Tensor& out, const Tensor& inp, int64_t outer, int64_t dim_size, int64_t inner);
  // dinp from the saved out and the incoming dout (= writes).
  void (*backward)(const Tensor& dinp, const Tensor& out, const Tensor& dout, int64_t outer, int64_t dim_size,
                   int64_t inner);
};

// The op's derivative, written with tapegrad ops on its output `out` (x's shape) along `dim`:
// the one definition of its rules, each mapping a tensor of x's shape to another.
struct RowRules {
  Tensor (*backward)(const Tensor& out, const Tensor& grad, int64_t dim);    // dx from grad (reverse)
  Tensor (*forward)(const Tensor& out, const Tensor& tangent, int64_t dim);  // tangent of out from x's
};

// op(x) along dim: checks x (floating, dim in range; errors name `op` and x's shape), runs the
// kernels of x's device on a contiguous copy, and records `op` with attr "dim", saved "out",
// the rules (the backward one as the reference) and the backward kernels as the fast path.
// cuda: TG_CUDA_KERNEL(...) (core/cuda/cuda_only.h), null and never called without CUDA.
Tensor rowwise_op(const char* op, const Tensor& x, int64_t dim, RowRules rules, RowKernels cpu, RowKernels cuda);

}  // namespace tg
