#include "ops/matmul/cublas_library.h"

#include <dlfcn.h>

#include <string>

#include "core/error.h"

namespace tg::detail {

namespace {

#ifdef TAPEGRAD_CUBLAS_SONAME  // ops/CMakeLists.txt: a real CUDA build names the library
// The soname first (the loader's search path, as a linked library would be found), then the
// file this build found.
void* open_cublas() {
  std::string reasons;
  for (const char* file : {TAPEGRAD_CUBLAS_SONAME, TAPEGRAD_CUBLAS_FILE}) {
    if (void* handle = dlopen(file, RTLD_NOW | RTLD_LOCAL)) return handle;
    reasons += std::string("\n  ") + dlerror();
  }
  throw Error("matmul", "cannot load cuBLAS, which every matmul on a GPU uses (tried " TAPEGRAD_CUBLAS_SONAME
                        " and " TAPEGRAD_CUBLAS_FILE "):" + reasons);
}

template <typename Function>
Function symbol(void* library, const char* name) {
  void* address = dlsym(library, name);
  if (!address) throw Error("matmul", std::string("the cuBLAS library has no function ") + name);
  return reinterpret_cast<Function>(address);
}

CublasLibrary load() {
  void* library = open_cublas();
  using L = CublasLibrary;
  return {symbol<decltype(L::create)>(library, "cublasCreate_v2"),
          symbol<decltype(L::status_string)>(library, "cublasGetStatusString"),
          symbol<decltype(L::sgemm_strided_batched)>(library, "cublasSgemmStridedBatched"),
          symbol<decltype(L::dgemm_strided_batched)>(library, "cublasDgemmStridedBatched")};
}
#else  // the CUDA emulator's cuBLAS, linked
CublasLibrary load() {
  return {&cublasCreate, &cublasGetStatusString, &cublasSgemmStridedBatched, &cublasDgemmStridedBatched};
}
#endif

}  // namespace

const CublasLibrary& cublas_library() {
  static const CublasLibrary library = load();  // a throw leaves it to be tried again
  return library;
}

void cublas_fail(cublasStatus_t status, const char* op, const char* file, int line) {
  throw Error(op, std::string("cuBLAS error '") + cublas_library().status_string(status) + "' at " + file + ":" +
                      std::to_string(line));
}

}  // namespace tg::detail
