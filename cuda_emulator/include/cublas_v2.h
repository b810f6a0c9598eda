#pragma once
// The CUDA emulator's stand-in for cuBLAS (cuda_runtime.h says why it exists): the calls
// tapegrad makes, with cuBLAS's own argument checks (sizes, leading dimensions, device
// pointers), computed in double on the CPU. Column-major, as cuBLAS is.
#include "cuda_runtime.h"

using cublasHandle_t = struct cublasContext*;

enum cublasStatus_t {
  CUBLAS_STATUS_SUCCESS = 0,
  CUBLAS_STATUS_NOT_INITIALIZED = 1,
  CUBLAS_STATUS_ALLOC_FAILED = 3,
  CUBLAS_STATUS_INVALID_VALUE = 7,
};
enum cublasOperation_t { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1 };

cublasStatus_t cublasCreate(cublasHandle_t* handle);
cublasStatus_t cublasDestroy(cublasHandle_t handle);
const char* cublasGetStatusString(cublasStatus_t status);

// C_i = alpha op(A_i) op(B_i) + beta C_i for i < batch_count; C_i is m x n, op(A_i) m x k,
// op(B_i) k x n; X_i = X + i * stride_x. alpha and beta are host pointers (cuBLAS's default).
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t trans_a,
                                         cublasOperation_t trans_b, int m, int n, int k, const float* alpha,
                                         const float* A, int lda, long long stride_a, const float* B, int ldb,
                                         long long stride_b, const float* beta, float* C, int ldc,
                                         long long stride_c, int batch_count);
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t trans_a,
                                         cublasOperation_t trans_b, int m, int n, int k, const double* alpha,
                                         const double* A, int lda, long long stride_a, const double* B, int ldb,
                                         long long stride_b, const double* beta, double* C, int ldc,
                                         long long stride_c, int batch_count);
