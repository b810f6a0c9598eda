#pragma once
// How the GEMM kernels (CPU and CUDA) read one matmul operand: a tensor x (..., rows, cols)
// of rank >= 2 whose leading dims broadcast to the output's batch shape.
//
// The last two dims are read in place when they are row-major (stride of cols 1) or
// column-major (stride of rows 1: a transposed view, read with trans = true); any other
// layout (a sliced or expanded matrix) is first copied to a contiguous tensor.
// (No fmt here: the CUDA kernel includes this header.)
#include <cstdint>
#include <vector>

#include "core/tensor.h"

namespace tg {

struct GemmInput {
  Tensor x;                      // the operand, or its contiguous copy
  bool trans = false;            // matrices stored column-major
  int64_t ld = 1;                // elements between consecutive stored rows (>= max(1, row length))
  std::vector<int64_t> offsets;  // start of matrix p of the batch, in elements from x's first
};

// `batch` is the output's batch shape (all but the last two dims). With uniform_stride the
// offsets are made an arithmetic sequence offsets[p] = p * batch_stride (what strided-batched
// cuBLAS needs), by a contiguous copy of x broadcast to the batch when they are not.
GemmInput gemm_input(const Tensor& x, const Shape& batch, bool uniform_stride = false);

// The step between consecutive offsets when they are an arithmetic sequence, else -1.
int64_t batch_stride(const GemmInput& in);

}  // namespace tg
