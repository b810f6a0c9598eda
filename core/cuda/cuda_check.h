#pragma once
// TG_CUDA_CHECK(call, op): every CUDA runtime call and every kernel launch is checked; a
// failure throws tg::Error naming the op, the file, the line and CUDA's own message.
#include <cuda_runtime.h>

#include <string>

#include "core/error.h"

namespace tg::detail {
[[noreturn]] inline void cuda_fail(cudaError_t err, const char* op, const char* file, int line) {
  throw Error(op, std::string("CUDA error '") + cudaGetErrorString(err) + "' at " + file + ":" +
                      std::to_string(line));
}
}  // namespace tg::detail

#define TG_CUDA_CHECK(call, op)                                              \
  do {                                                                       \
    cudaError_t tg_cuda_err_ = (call);                                       \
    if (tg_cuda_err_ != cudaSuccess) ::tg::detail::cuda_fail(tg_cuda_err_, op, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: catches bad launch configurations at once.
#define TG_CUDA_CHECK_LAUNCH(op) TG_CUDA_CHECK(cudaGetLastError(), op)
