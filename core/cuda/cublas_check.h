#pragma once
// TG_CUBLAS_CHECK(call, op): every cuBLAS call is checked; a failure throws tg::Error naming
// the op, the file, the line and cuBLAS's own message (the twin of TG_CUDA_CHECK).
#include <cublas_v2.h>

#include <string>

#include "core/error.h"

namespace tg::detail {
[[noreturn]] inline void cublas_fail(cublasStatus_t status, const char* op, const char* file, int line) {
  throw Error(op, std::string("cuBLAS error '") + cublasGetStatusString(status) + "' at " + file + ":" +
                      std::to_string(line));
}
}  // namespace tg::detail

#define TG_CUBLAS_CHECK(call, op)                                                   \
  do {                                                                              \
    cublasStatus_t tg_cublas_status_ = (call);                                      \
    if (tg_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                 \
      ::tg::detail::cublas_fail(tg_cublas_status_, op, __FILE__, __LINE__);         \
  } while (0)
