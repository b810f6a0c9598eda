#include <array>
#include <climits>
#include <mutex>
#include <type_traits>

#include "core/copy.h"
#include "core/cuda/cuda_check.h"
#include "core/dispatch.h"
#include "ops/matmul/cublas_library.h"
#include "ops/matmul/gemm_input.h"
#include "ops/matmul/matmul.h"

namespace tg {

namespace {

// One cuBLAS handle per GPU, made on first use and kept for the life of the process
// (destroying it at exit could run after the CUDA context is gone).
cublasHandle_t cublas_handle(int device) {
  static std::array<cublasHandle_t, 64> handles{};
  static std::mutex mutex;
  if (device < 0 || device >= static_cast<int>(handles.size()))
    throw Error("matmul", "cuda:" + std::to_string(device) + " is beyond the supported GPUs");
  std::lock_guard<std::mutex> lock(mutex);
  if (!handles[device]) TG_CUBLAS_CHECK(detail::cublas_library().create(&handles[device]), "matmul");
  return handles[device];
}

int checked_int(int64_t v) {
  if (v > INT_MAX) throw Error("matmul", "size " + std::to_string(v) + " exceeds cuBLAS's int range");
  return static_cast<int>(v);
}

}  // namespace

void matmul_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b) {
  // out (batch..., M, N), a (..., M, K), b (..., K, N)
  const int64_t M = out.size(-2), N = out.size(-1), K = a.size(-1);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  if (out.numel() == 0) return;
  if (K == 0) return fill_(out, 0);
  TG_CUDA_CHECK(cudaSetDevice(out.device().index), "matmul");
  cublasHandle_t handle = cublas_handle(out.device().index);
  const GemmInput ga = gemm_input(a, batch, true), gb = gemm_input(b, batch, true);
  // cuBLAS is column-major, and a row-major matrix read column-major is its transpose, so
  // compute out^T (N,M) = op(b)^T (N,K) @ op(a)^T (K,M): swap the operands, keep the flags.
  const cublasOperation_t op_b = gb.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_a = ga.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int m = checked_int(N), n = checked_int(M), k = checked_int(K), count = checked_int(numel(batch));
  const int ldb = checked_int(gb.ld), lda = checked_int(ga.ld);
  const long long stride_b = batch_stride(gb), stride_a = batch_stride(ga), stride_c = M * N;
  const detail::CublasLibrary& cublas = detail::cublas_library();
  dispatch_floating(out.dtype(), "matmul", [&](auto zero) {
    using T = decltype(zero);
    const T one = 1, nothing = 0;
    if constexpr (std::is_same_v<T, float>)
      TG_CUBLAS_CHECK(cublas.sgemm_strided_batched(handle, op_b, op_a, m, n, k, &one, gb.x.data<T>(), ldb, stride_b,
                                                   ga.x.data<T>(), lda, stride_a, &nothing, out.data<T>(), m,
                                                   stride_c, count),
                      "matmul");
    else
      TG_CUBLAS_CHECK(cublas.dgemm_strided_batched(handle, op_b, op_a, m, n, k, &one, gb.x.data<T>(), ldb, stride_b,
                                                   ga.x.data<T>(), lda, stride_a, &nothing, out.data<T>(), m,
                                                   stride_c, count),
                      "matmul");
  });
}

}  // namespace tg
