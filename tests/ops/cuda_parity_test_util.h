#pragma once
// CUDA-versus-CPU checks for the ops with GPU kernels. The CPU kernel is the reference; a
// failure names the case, the dtype, which tensor (output or the gradient of input i), its
// shape and its worst element (require_close).
#include <string>
#include <vector>

#include "ops/common/row_blocks.h"
#include "test_util.h"

namespace tg::test {

// The inputs on the GPU (floating ones in float64), layouts and requires_grad kept: for
// require_gradcheck on the GPU. Undefined inputs stay undefined.
inline std::vector<Tensor> on_gpu(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs)
    out.push_back(t.defined() ? copy_keeping_strides(t, is_floating(t.dtype()) ? kF64 : t.dtype(), Device::cuda())
                              : t);
  return out;
}

// require_cuda_matches_cpu (test_util.h) under a name for the failure message.
inline void require_cuda_matches_cpu_with_grads(const std::string& what, const GradcheckFn& fn,
                                                const std::vector<Tensor>& inputs, double atol32 = 1e-5,
                                                double rtol32 = 1e-5) {
  INFO(what);
  require_cuda_matches_cpu(fn, inputs, atol32, rtol32);
}

// More rows than one grid of a one-block-per-row kernel holds (ops/common/row_blocks.h), so
// that its blocks loop over rows: 73726 on a GPU, 1152 on the CUDA emulator.
inline int64_t rows_beyond_one_grid() { return max_row_blocks() + max_row_blocks() / 8; }

}  // namespace tg::test
