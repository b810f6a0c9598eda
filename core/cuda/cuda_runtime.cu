// CUDA services for the core: device count, allocation, copies. Built with CUDA only.
#include "core/cuda/cuda_check.h"
#include "core/cuda/cuda_runtime.h"

namespace tg {

bool cuda_built() { return true; }

int cuda_device_count() {
  int count = 0;
  // Without a GPU or driver this returns an error: that means zero devices, not a failure.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return count;
}

void* cuda_malloc(size_t nbytes, int device_index) {
  if (device_index >= cuda_device_count())
    throw Error("cuda_malloc", "cuda:" + std::to_string(device_index) + " is not available (" +
                                   std::to_string(cuda_device_count()) + " GPU(s) found)");
  TG_CUDA_CHECK(cudaSetDevice(device_index), "cuda_malloc");
  void* ptr = nullptr;
  TG_CUDA_CHECK(cudaMalloc(&ptr, nbytes == 0 ? 1 : nbytes), "cuda_malloc");
  return ptr;
}

void cuda_free(void* ptr, int device_index) {
  if (!ptr) return;
  cudaSetDevice(device_index);
  cudaFree(ptr);  // never throw from a destructor path
}

void cuda_memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  cudaMemcpyKind kind = dst_device.is_cuda()
                            ? (src_device.is_cuda() ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                            : cudaMemcpyDeviceToHost;
  TG_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, kind), "copy");
}

void cuda_synchronize() { TG_CUDA_CHECK(cudaDeviceSynchronize(), "cuda_synchronize"); }

}  // namespace tg
