#pragma once
// BlockCache: the caching allocator of one device, shared by the CPU (core/storage.cpp) and
// the GPUs (core/cuda/cuda_runtime.cu). A request is rounded up to its size class; a freed
// block goes into the free list of its class, and the next request of that class pops it
// instead of asking the system. Nothing is allocated on the heap per request once a class
// has been seen (the free lists keep their capacity), so a training step that repeats the
// same sizes makes no system allocation and no heap allocation at all.
// The caller says the block's size again when freeing it (Storage keeps it), so no table of
// live blocks is needed. One mutex guards each cache: any thread may allocate and free.
// (No fmt here: nvcc compiles this header.)
#include <algorithm>
#include <bit>
#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/allocator.h"

namespace tg {

// Size classes: up to 1 MiB a multiple of 512 B; above, 8 classes per power of two
// (2 MiB, 2.25 MiB, 2.5 MiB, ... 4 MiB), so rounding wastes at most 1/8 of a large block.
// Every class is a multiple of 512 B, so blocks are as aligned as the system gives them.
constexpr size_t block_size_class(size_t nbytes) {
  constexpr size_t kStep = 512, kFineUpTo = size_t{1} << 20;
  if (nbytes <= kFineUpTo) return (std::max<size_t>(nbytes, 1) + kStep - 1) / kStep * kStep;
  const size_t step = std::bit_floor(nbytes) / 8;
  return (nbytes + step - 1) / step * step;
}

// System provides `void* allocate(size_t)` (nullptr when out of memory) and `void release(void*)`.
template <class System>
class BlockCache {
 public:
  BlockCache(System system, bool caching) : system_(system), caching_(caching) {}
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // A block of at least nbytes, from the cache when one of its class is free; nullptr when the
  // system is out of memory even after the cached blocks were given back.
  void* allocate(size_t nbytes) {
    const size_t size = block_size_class(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    void* ptr = nullptr;
    if (auto it = free_.find(size); it != free_.end() && !it->second.empty()) {
      ptr = it->second.back();  // a cache hit: no system call
      it->second.pop_back();
      ++stats_.cache_hits;
      stats_.cached_bytes -= static_cast<int64_t>(size);
    } else {
      ptr = system_.allocate(size);
      if (!ptr) {  // out of memory: give the cached blocks back and try once more
        release_cached();
        ptr = system_.allocate(size);
        if (!ptr) return nullptr;
      }
      ++stats_.system_allocations;
    }
    stats_.in_use_bytes += static_cast<int64_t>(size);
    stats_.peak_in_use_bytes = std::max(stats_.peak_in_use_bytes, stats_.in_use_bytes);
    return ptr;
  }

  // Takes back a block from allocate(nbytes) (the same nbytes).
  void free(void* ptr, size_t nbytes) {
    if (!ptr) return;
    const size_t size = block_size_class(nbytes);
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.in_use_bytes -= static_cast<int64_t>(size);
    if (!caching_) return system_.release(ptr);
    try {
      free_[size].push_back(ptr);  // allocates only the first time a class is freed
    } catch (...) {                // called from destructors: never throw
      return system_.release(ptr);
    }
    stats_.cached_bytes += static_cast<int64_t>(size);
  }

  MemoryStats stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stats_;
  }
  void empty() {
    std::lock_guard<std::mutex> lock(mutex_);
    release_cached();
  }
  void reset_peak() {
    std::lock_guard<std::mutex> lock(mutex_);
    stats_.peak_in_use_bytes = stats_.in_use_bytes;
  }
  void set_caching(bool enabled) {
    std::lock_guard<std::mutex> lock(mutex_);
    caching_ = enabled;
    if (!enabled) release_cached();
  }
  bool caching() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return caching_;
  }

 private:
  void release_cached() {  // the caller holds the mutex
    for (auto& [size, blocks] : free_) {
      for (void* block : blocks) system_.release(block);
      blocks.clear();
    }
    stats_.cached_bytes = 0;
  }

  System system_;
  mutable std::mutex mutex_;  // guards everything below
  bool caching_;
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> freed blocks
  MemoryStats stats_;
};

}  // namespace tg
