#pragma once
// Memory statistics and control of the caching allocators behind Storage (one for the CPU,
// one per GPU; both are a BlockCache, core/block_cache.h). A training step allocates and
// frees the same sizes over and over; a freed block is kept, in the bucket of its rounded
// size, and the next request of that bucket takes it without asking the system (malloc or
// cudaMalloc). Memory handed out is never cleared: only the factories that promise values
// (zeros, full, ...) write it.
//
// The CPU cache can be switched off, for AddressSanitizer or valgrind runs that must see every
// free: set_cpu_caching(false), or the environment variable TAPEGRAD_CPU_CACHING=0 read at the
// first allocation. It starts off in builds with -fsanitize=address.
#include <cstdint>

#include "core/device.h"

namespace tg {

struct MemoryStats {
  int64_t system_allocations = 0;  // blocks obtained from the system (aligned_alloc or cudaMalloc)
  int64_t cache_hits = 0;          // requests served from a freed block instead
  int64_t in_use_bytes = 0;        // held by live storages (rounded sizes)
  int64_t peak_in_use_bytes = 0;   // the most in_use_bytes has been since the start or the last reset
  int64_t cached_bytes = 0;        // freed, kept for reuse
};

// The counters of `device`'s allocator since the start (all zero for a GPU never used).
// (cuda_memory_stats in core/device.h is the older GPU-only form of the same counters.)
MemoryStats memory_stats(Device device = kCPU);
// Gives `device`'s cached (freed) blocks back to the system; live tensors are untouched.
void empty_cache(Device device = kCPU);
// Restarts peak_in_use_bytes at the current in_use_bytes.
void reset_peak_memory_stats(Device device = kCPU);
// Turns the CPU cache on or off; turning it off also empties it.
void set_cpu_caching(bool enabled);
bool cpu_caching();

}  // namespace tg
