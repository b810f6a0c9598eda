#pragma once
// cuBLAS, opened with dlopen when the first GEMM runs on a GPU rather than linked. Loading
// libcublas runs cuBLASLt's initialisers, which cost every process about 0.4 s at start, GPU
// or not (an empty program linked with -lcublas: 0.39 s; without it: under 0.01 s), and
// `tapegrad` and each test case are processes. Under the CUDA emulator (cuda_emulator/) its
// stand-in is linked in and taken as it is.
//
// TG_CUBLAS_CHECK(call, op): every cuBLAS call is checked; a failure throws tg::Error naming
// the op, the file, the line and cuBLAS's own message (the twin of TG_CUDA_CHECK).
#include <cublas_v2.h>

namespace tg::detail {

struct CublasLibrary {
  decltype(&cublasCreate) create;
  decltype(&cublasGetStatusString) status_string;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched;
  decltype(&cublasDgemmStridedBatched) dgemm_strided_batched;
};

// The library, opened on the first call (thread-safe) and kept for the life of the process.
// Throws tg::Error naming each file tried and the loader's reason when it cannot be opened or
// lacks one of the functions.
const CublasLibrary& cublas_library();

[[noreturn]] void cublas_fail(cublasStatus_t status, const char* op, const char* file, int line);

}  // namespace tg::detail

#define TG_CUBLAS_CHECK(call, op)                                                   \
  do {                                                                              \
    cublasStatus_t tg_cublas_status_ = (call);                                      \
    if (tg_cublas_status_ != CUBLAS_STATUS_SUCCESS)                                 \
      ::tg::detail::cublas_fail(tg_cublas_status_, op, __FILE__, __LINE__);         \
  } while (0)
