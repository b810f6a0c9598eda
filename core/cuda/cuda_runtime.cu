// CUDA services for the core: device count, allocation (a caching allocator), copies. Built
// with CUDA only.
#include <algorithm>
#include <bit>
#include <mutex>
#include <unordered_map>
#include <vector>

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

namespace {

// The caching allocator. cudaMalloc is slow and cudaFree waits for the whole GPU, while a
// training step frees and allocates the same sizes over and over. So a freed block goes into a
// per-GPU cache, in the bucket of its rounded size, and the next request for that bucket takes
// it without calling the driver. Handing a block out again at once is safe because every
// kernel and copy runs on the legacy default stream: work still reading the old tensor is
// queued before any work that writes the new one.
// Buckets: sizes up to 1 MiB round up to a multiple of 512 B, larger ones to a power of two.
constexpr size_t kSmallStep = 512;
constexpr size_t kLargeFrom = size_t{1} << 20;

size_t bucket_of(size_t nbytes) {
  if (nbytes <= kLargeFrom) return (std::max<size_t>(nbytes, 1) + kSmallStep - 1) / kSmallStep * kSmallStep;
  return std::bit_ceil(nbytes);
}

struct DeviceCache {
  std::unordered_map<size_t, std::vector<void*>> free_blocks;  // bucket size -> freed blocks
  std::unordered_map<void*, size_t> live;                      // block in use -> its bucket size
  CudaMemoryStats stats;
};

struct Allocator {
  std::mutex mutex;  // guards everything below
  std::unordered_map<int, DeviceCache> devices;
};

// Never destroyed: at exit the CUDA context may be gone already, and the driver frees all.
Allocator& allocator() {
  static Allocator* instance = new Allocator;
  return *instance;
}

// Gives the cached blocks of one GPU back to the driver (the caller holds the mutex).
void release_cached(int device_index, DeviceCache& cache) {
  TG_CUDA_CHECK(cudaSetDevice(device_index), "cuda_empty_cache");
  for (auto& [size, blocks] : cache.free_blocks)
    for (void* block : blocks) TG_CUDA_CHECK(cudaFree(block), "cuda_empty_cache");
  cache.free_blocks.clear();
  cache.stats.cached_bytes = 0;
}

}  // namespace

void* cuda_malloc(size_t nbytes, int device_index) {
  if (device_index < 0 || device_index >= cuda_device_count())
    throw Error("cuda_malloc", "cuda:" + std::to_string(device_index) + " is not available (" +
                                   std::to_string(cuda_device_count()) + " GPU(s) found)");
  const size_t size = bucket_of(nbytes);
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  DeviceCache& cache = a.devices[device_index];
  void* ptr = nullptr;
  auto bucket = cache.free_blocks.find(size);
  if (bucket != cache.free_blocks.end() && !bucket->second.empty()) {
    ptr = bucket->second.back();  // a cache hit: no driver call
    bucket->second.pop_back();
    ++cache.stats.cache_hits;
    cache.stats.cached_bytes -= static_cast<int64_t>(size);
  } else {
    TG_CUDA_CHECK(cudaSetDevice(device_index), "cuda_malloc");
    if (cudaMalloc(&ptr, size) != cudaSuccess) {
      cudaGetLastError();  // out of memory (not sticky): give the cached blocks back, try once more
      release_cached(device_index, cache);
      TG_CUDA_CHECK(cudaMalloc(&ptr, size), "cuda_malloc");
    }
    ++cache.stats.driver_allocations;
  }
  cache.live.emplace(ptr, size);
  cache.stats.in_use_bytes += static_cast<int64_t>(size);
  return ptr;
}

void cuda_free(void* ptr, int device_index) {
  if (!ptr) return;
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  DeviceCache& cache = a.devices[device_index];
  auto it = cache.live.find(ptr);
  if (it == cache.live.end()) return;  // not from cuda_malloc: nothing to do (never throw here)
  const size_t size = it->second;
  cache.live.erase(it);
  cache.free_blocks[size].push_back(ptr);
  cache.stats.in_use_bytes -= static_cast<int64_t>(size);
  cache.stats.cached_bytes += static_cast<int64_t>(size);
}

CudaMemoryStats cuda_memory_stats(int device_index) {
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  auto it = a.devices.find(device_index);
  return it == a.devices.end() ? CudaMemoryStats{} : it->second.stats;
}

void cuda_empty_cache() {
  Allocator& a = allocator();
  std::lock_guard<std::mutex> lock(a.mutex);
  for (auto& [device_index, cache] : a.devices) release_cached(device_index, cache);
}

void cuda_memcpy(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes) {
  cudaMemcpyKind kind = dst_device.is_cuda()
                            ? (src_device.is_cuda() ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                            : cudaMemcpyDeviceToHost;
  TG_CUDA_CHECK(cudaMemcpy(dst, src, nbytes, kind), "copy");
}

void cuda_synchronize() { TG_CUDA_CHECK(cudaDeviceSynchronize(), "cuda_synchronize"); }

}  // namespace tg
