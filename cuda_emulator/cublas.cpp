// cuBLAS's strided batched GEMM on the CPU, after the argument checks cuBLAS makes (its
// documentation lists them): sizes >= 0, lda >= max(1, rows of A as stored), the same for B and
// C, and every matrix inside one live GPU block. Sums in double.
#include <cublas_v2.h>

#include <string>
#include <vector>

#include "emulator.h"

struct cublasContext {};

namespace {

// A column-major matrix as stored: `rows` x `cols` with leading dimension ld.
struct Stored {
  const char* name;
  const void* data;
  int64_t rows, cols, ld, stride;
};

std::string check(const Stored& s, int batch, size_t element) {
  if (s.ld < std::max<int64_t>(1, s.rows))
    return std::string("ld") + s.name + " = " + std::to_string(s.ld) + " < max(1, " + std::to_string(s.rows) + ")";
  if (s.rows == 0 || s.cols == 0 || batch == 0) return "";
  const int64_t last = (batch - 1) * s.stride + (s.cols - 1) * s.ld + s.rows;  // one past the last element
  if (s.stride < 0 || !tg::emu::is_device_range(s.data, static_cast<size_t>(last) * element))
    return std::string(s.name) + " at " + tg::emu::describe_pointer(s.data) + " with stride " +
           std::to_string(s.stride) + ": its " + std::to_string(batch) + " matrices are not inside one live GPU block";
  return "";
}

thread_local std::string last_status_text;

template <class T>
cublasStatus_t gemm_strided_batched(cublasHandle_t handle, cublasOperation_t trans_a, cublasOperation_t trans_b,
                                    int m, int n, int k, const T* alpha, const T* A, int lda, long long stride_a,
                                    const T* B, int ldb, long long stride_b, const T* beta, T* C, int ldc,
                                    long long stride_c, int batch) {
  if (!handle) return CUBLAS_STATUS_NOT_INITIALIZED;
  const bool ta = trans_a == CUBLAS_OP_T, tb = trans_b == CUBLAS_OP_T;
  std::string why;
  if (m < 0 || n < 0 || k < 0 || batch < 0 || !alpha || !beta)
    why = "m, n, k, batch_count must be >= 0 and alpha, beta set";
  for (const Stored& s : {Stored{"A", A, ta ? k : m, ta ? m : k, lda, stride_a},
                          Stored{"B", B, tb ? n : k, tb ? k : n, ldb, stride_b}, Stored{"C", C, m, n, ldc, stride_c}})
    if (why.empty() && !(s.name[0] != 'C' && k == 0)) why = check(s, batch, sizeof(T));
  if (!why.empty()) {
    last_status_text = "invalid value: gemm (m " + std::to_string(m) + ", n " + std::to_string(n) + ", k " +
                       std::to_string(k) + "): " + why;
    return CUBLAS_STATUS_INVALID_VALUE;
  }
  tg::emu::DeviceAccess access("cublas gemm");
  for (int i = 0; i < batch; ++i) {
    const T *a = A + i * stride_a, *b = B + i * stride_b;
    T* c = C + i * stride_c;
    for (int col = 0; col < n; ++col)
      for (int row = 0; row < m; ++row) {
        double sum = 0;
        for (int p = 0; p < k; ++p)
          sum += static_cast<double>(ta ? a[p + row * int64_t{lda}] : a[row + p * int64_t{lda}]) *
                 (tb ? b[col + p * int64_t{ldb}] : b[p + col * int64_t{ldb}]);
        T& out = c[row + col * int64_t{ldc}];
        // beta == 0: C is not read (it may hold NaN), as in cuBLAS
        out = static_cast<T>(*alpha * sum + (*beta == T(0) ? 0.0 : *beta * static_cast<double>(out)));
      }
  }
  return CUBLAS_STATUS_SUCCESS;
}

}  // namespace

cublasStatus_t cublasCreate(cublasHandle_t* handle) {
  if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
  *handle = new cublasContext;
  return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t handle) {
  delete handle;
  return CUBLAS_STATUS_SUCCESS;
}

const char* cublasGetStatusString(cublasStatus_t status) {
  switch (status) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return last_status_text.empty() ? "CUBLAS_STATUS_INVALID_VALUE" : last_status_text.c_str();
  }
  return "unknown cuBLAS status";
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t trans_a, cublasOperation_t trans_b,
                                         int m, int n, int k, const float* alpha, const float* A, int lda,
                                         long long stride_a, const float* B, int ldb, long long stride_b,
                                         const float* beta, float* C, int ldc, long long stride_c, int batch_count) {
  return gemm_strided_batched(handle, trans_a, trans_b, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C,
                              ldc, stride_c, batch_count);
}

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t trans_a, cublasOperation_t trans_b,
                                         int m, int n, int k, const double* alpha, const double* A, int lda,
                                         long long stride_a, const double* B, int ldb, long long stride_b,
                                         const double* beta, double* C, int ldc, long long stride_c,
                                         int batch_count) {
  return gemm_strided_batched(handle, trans_a, trans_b, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C,
                              ldc, stride_c, batch_count);
}
