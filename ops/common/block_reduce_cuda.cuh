#pragma once
// For the CUDA kernels that give one block to each row (softmax, log_softmax, layer_norm,
// cross_entropy): every thread folds its share of the row (elements threadIdx.x,
// threadIdx.x + kThreads, ...) into a double, then block_sum / block_max combine the kThreads
// partial values in shared memory and hand the total to every thread of the block.
//
// Rules for such kernels: launch them as <<<row_blocks(rows), kThreads>>>, loop over rows with
// TG_BLOCK_PER_ROW_LOOP, and let every thread of a block reach every block_* call (each call
// synchronises the block, so a branch around one must be the same for the whole block).
#include <cmath>
#include <cstdint>

#include "core/cuda/strided_cuda.cuh"
#include "ops/common/row_blocks.h"

namespace tg {

// The larger of a and b, where a NaN in either wins: a NaN then reaches every output of its row.
__device__ inline double max_keep_nan(double a, double b) { return (isnan(a) || a > b) ? a : b; }

struct SumOp {
  __device__ double operator()(double a, double b) const { return a + b; }
};
struct MaxKeepNanOp {
  __device__ double operator()(double a, double b) const { return max_keep_nan(a, b); }
};

// Tree reduction of one value per thread; blockDim.x must be kThreads (a power of two).
template <class Op>
__device__ double block_reduce(double value, Op op) {
  __shared__ double partial[kThreads];
  const int t = static_cast<int>(threadIdx.x);
  partial[t] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) partial[t] = op(partial[t], partial[t + half]);
    __syncthreads();
  }
  const double total = partial[0];
  __syncthreads();  // every thread has read partial[0] before the next call overwrites it
  return total;
}

__device__ inline double block_sum(double value) { return block_reduce(value, SumOp{}); }
__device__ inline double block_max(double value) { return block_reduce(value, MaxKeepNanOp{}); }

// for (row r of `rows` given to this block) { ... }: the whole block works on row r.
#define TG_BLOCK_PER_ROW_LOOP(r, rows) for (int64_t r = blockIdx.x; r < (rows); r += gridDim.x)

}  // namespace tg
