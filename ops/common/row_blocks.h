#pragma once
// The grid of the CUDA kernels that give one block to each row (softmax, log_softmax,
// layer_norm, cross_entropy; ops/common/block_reduce_cuda.cuh). Host code: the tests size their
// "more rows than one grid holds" cases from it.
#include <cstdint>

namespace tg {

// The most blocks in such a grid; its blocks loop over the rows beyond it. 65535 on a GPU.
// The CUDA emulator runs blocks one after another on the CPU: there it is 1024, so that the
// tests of the loop take seconds, not minutes.
int64_t max_row_blocks();

// One block per row, at most max_row_blocks(), at least one.
inline int row_blocks(int64_t rows) {
  const int64_t most = max_row_blocks();
  return static_cast<int>(rows < 1 ? 1 : (rows < most ? rows : most));
}

}  // namespace tg
