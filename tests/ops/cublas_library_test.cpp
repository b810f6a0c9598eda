// cuBLAS is opened when a GEMM on a GPU first needs it, not linked (ops/matmul/cublas_library.h):
// a process that stays on the CPU never loads it.
#ifdef TAPEGRAD_WITH_CUDA
#include "ops/matmul/cublas_library.h"

#include <fstream>
#include <sstream>
#include <string>

#include "test_util.h"

using namespace tg;

namespace {
bool library_mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  return text.str().find(name) != std::string::npos;
}
}  // namespace

TEST_CASE("cublas library (CUDA): not loaded at start, opened on first use with every function tapegrad calls") {
  // With no GPU no GEMM has run on one in this process, so nothing can have opened cuBLAS yet.
  if (!cuda_emulated() && cuda_device_count() == 0) CHECK_FALSE(library_mapped("libcublas"));
  const detail::CublasLibrary& cublas = detail::cublas_library();
  CHECK(static_cast<bool>(cublas.create));
  CHECK(static_cast<bool>(cublas.status_string));
  CHECK(static_cast<bool>(cublas.sgemm_strided_batched));
  CHECK(static_cast<bool>(cublas.dgemm_strided_batched));
  CHECK(std::string(cublas.status_string(CUBLAS_STATUS_INVALID_VALUE)).size() > 0);
  if (!cuda_emulated()) CHECK(library_mapped("libcublas"));
  CHECK(&detail::cublas_library() == &cublas);
}
#endif
