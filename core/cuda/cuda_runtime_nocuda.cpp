// Built only without CUDA: every CUDA service is a clear error (this file replaces the .cu files).
#include "core/cuda/cuda_runtime.h"
#include "core/error.h"

namespace tg {

namespace {
[[noreturn]] void not_built(const char* op) {
  throw Error(op, "tapegrad was built without CUDA (configure with -DTAPEGRAD_CUDA=ON on a machine "
                  "with the CUDA toolkit)");
}
}  // namespace

bool cuda_built() { return false; }
bool cuda_emulated() { return false; }
int cuda_device_count() { return 0; }
void* cuda_malloc(size_t, int) { not_built("cuda_malloc"); }
void cuda_free(void*, size_t, int) {}
CudaMemoryStats cuda_memory_stats(int) { return {}; }
MemoryStats cuda_allocator_stats(int) { return {}; }
void cuda_empty_cache() {}
void cuda_reset_peak_memory_stats(int) {}
void cuda_memcpy(void*, Device, const void*, Device, size_t) { not_built("cuda_memcpy"); }
void* cuda_host_alloc(size_t) { not_built("cuda_host_alloc"); }
void cuda_host_free(void*) {}
bool cuda_host_memory_pinned() { return false; }
void cuda_synchronize() {}

}  // namespace tg

#include "core/cuda/core_kernels.h"

namespace tg {
void copy_cuda(const Tensor&, const Tensor&) { not_built("copy"); }
void add_into_cuda(const Tensor&, const Tensor&) { not_built("add_into"); }
void fill_cuda(const Tensor&, double) { not_built("fill"); }
bool all_finite_cuda(const Tensor&, bool) { not_built("all_finite"); }
}  // namespace tg
