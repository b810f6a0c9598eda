#pragma once
// Shared by softmax and log_softmax: ops that map each row along `dim` (ops/common/dim_rows.h) to
// a row of the same length, and whose backward needs only the output and the gradient. Each
// op keeps its formula, kernels and backward rule in its own folder and hands its kernels here.
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

// op(x) along dim: checks x (floating, dim in range; errors name `op` and x's shape), runs the
// kernels of x's device on a contiguous copy, and records `op` with attr "dim" and saved "out".
// cuda: TG_CUDA_KERNEL(...) (core/cuda/cuda_only.h), null and never called without CUDA.
Tensor rowwise_op(const char* op, const Tensor& x, int64_t dim, RowKernels cpu, RowKernels cuda);

}  // namespace tg
