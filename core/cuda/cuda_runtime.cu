// CUDA services for the core: device count, allocation (a caching allocator), copies. Built
// with CUDA only.
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/block_cache.h"
#include "core/cuda/cuda_check.h"
#include "core/cuda/cuda_runtime.h"

namespace tg {

bool cuda_built() { return true; }

#ifdef TAPEGRAD_CUDA_EMULATOR
bool cuda_emulated() { return true; }
#else
bool cuda_emulated() { return false; }
#endif

int cuda_device_count() {
  int count = 0;
  // Without a GPU or driver this returns an error: that means zero devices, not a failure.
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  return count;
}

namespace {

// The caching allocator (core/block_cache.h), one per GPU. cudaMalloc is slow and cudaFree
// waits for the whole GPU, while a training step frees and allocates the same sizes over and
// over. Handing a freed block out again at once is safe because every kernel and copy runs on
// the legacy default stream: work still reading the old tensor is queued before any work that
// writes the new one.
struct CudaSystem {
  int device_index = 0;
  void* allocate(size_t size) const {
    TG_CUDA_CHECK(cudaSetDevice(device_index), "cuda_malloc");
    void* ptr = nullptr;
    if (cudaMalloc(&ptr, size) == cudaSuccess) return ptr;
    cudaGetLastError();  // out of memory is not sticky: clear it, the cache retries once
    return nullptr;
  }
  void release(void* ptr) const {
    TG_CUDA_CHECK(cudaSetDevice(device_index), "cuda_empty_cache");
    TG_CUDA_CHECK(cudaFree(ptr), "cuda_empty_cache");
  }
};
using CudaCache = BlockCache<CudaSystem>;

struct Allocator {
  std::mutex mutex;                              // guards the map, not the caches (each has its own)
  std::unordered_map<int, CudaCache> devices;    // node based: references stay valid
};

// Never destroyed: at exit the CUDA context may be gone already, and the driver frees all.
Allocator& allocator() {
  static Allocator* instance = new Allocator;
  return *instance;
}

CudaCache& cache_of(int device_index) {
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  auto it = a.devices.find(device_index);
  if (it == a.devices.end())
    it = a.devices.try_emplace(device_index, CudaSystem{device_index}, /*caching=*/true).first;
  return it->second;
}

}  // namespace

void* cuda_malloc(size_t nbytes, int device_index) {
  if (device_index < 0 || device_index >= cuda_device_count())
    throw Error("cuda_malloc", "cuda:" + std::to_string(device_index) + " is not available (" +
                                   std::to_string(cuda_device_count()) + " GPU(s) found)");
  void* ptr = cache_of(device_index).allocate(nbytes);
  if (!ptr) TG_CUDA_CHECK(cudaErrorMemoryAllocation, "cuda_malloc");
  return ptr;
}

void cuda_free(void* ptr, size_t nbytes, int device_index) { cache_of(device_index).free(ptr, nbytes); }

MemoryStats cuda_allocator_stats(int device_index) {
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  auto it = a.devices.find(device_index);
  return it == a.devices.end() ? MemoryStats{} : it->second.stats();
}

CudaMemoryStats cuda_memory_stats(int device_index) {
  const MemoryStats s = cuda_allocator_stats(device_index);
  return {.driver_allocations = s.system_allocations, .cache_hits = s.cache_hits, .in_use_bytes = s.in_use_bytes,
          .cached_bytes = s.cached_bytes};
}

void cuda_empty_cache() {
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  for (auto& [device_index, cache] : a.devices) cache.empty();
}

void cuda_reset_peak_memory_stats(int device_index) { cache_of(device_index).reset_peak(); }

void cuda_memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  cudaMemcpyKind kind = dst_device.is_cuda()
                            ? (src_device.is_cuda() ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                            : cudaMemcpyDeviceToHost;
  TG_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, kind), "copy");
}

#ifdef TAPEGRAD_CUDA_EMULATOR
void* cuda_host_alloc(size_t nbytes) {
  void* ptr = std::malloc(nbytes == 0 ? 1 : nbytes);
  if (!ptr) throw Error("cuda_host_alloc", "out of host memory for " + std::to_string(nbytes) + " bytes");
  return ptr;
}
void cuda_host_free(void* ptr) { std::free(ptr); }
bool cuda_host_memory_pinned() { return false; }
#else
void* cuda_host_alloc(size_t nbytes) {
  void* ptr = nullptr;
  TG_CUDA_CHECK(cudaMallocHost(&ptr, nbytes == 0 ? 1 : nbytes), "cuda_host_alloc");
  return ptr;
}
// Called from destructors: an error (the context already gone at exit) is not thrown.
void cuda_host_free(void* ptr) {
  if (ptr) cudaFreeHost(ptr);
}
bool cuda_host_memory_pinned() { return true; }
#endif

void cuda_synchronize() { TG_CUDA_CHECK(cudaDeviceSynchronize(), "cuda_synchronize"); }

}  // namespace tg
