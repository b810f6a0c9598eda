// The CPU caching allocator (core/block_cache.h behind Storage): size classes, cache hits,
// the stats, alignment, switching it off, and many threads at once.
#include <cstdint>
#include <vector>

#include <omp.h>

#include "core/block_cache.h"
#include "test_util.h"

using namespace tg;

namespace {

// Restores the caching switch and empties the cache around a test, so that the counters a test
// reads are its own and the other tests see the allocator as it was.
struct FreshCpuCache {
  bool was = cpu_caching();
  FreshCpuCache() {
    set_cpu_caching(true);
    empty_cache();
  }
  ~FreshCpuCache() { set_cpu_caching(was); }
};

}  // namespace

TEST_CASE("allocator: size classes are multiples of 512 B, 8 per power of two above 1 MiB") {
  CHECK(block_size_class(0) == 512);
  CHECK(block_size_class(1) == 512);
  CHECK(block_size_class(512) == 512);
  CHECK(block_size_class(513) == 1024);
  CHECK(block_size_class(size_t{1} << 20) == size_t{1} << 20);
  CHECK(block_size_class((size_t{1} << 20) + 1) == (size_t{1} << 20) + (size_t{1} << 17));  // 1.125 MiB
  CHECK(block_size_class(2400000) == size_t{5} << 19);                                     // 2.5 MiB
  CHECK(block_size_class(size_t{4} << 20) == size_t{4} << 20);  // the Transformer's (2048,512) f32
}

TEST_CASE("allocator: a training-like loop takes every block after the first round from the cache") {
  FreshCpuCache fresh;
  const MemoryStats start = memory_stats();
  CHECK(start.cached_bytes == 0);
  const int64_t a_bytes = 4096, b_bytes = 16896, c_bytes = int64_t{5} << 19;  // the classes of a, b, c
  for (int step = 0; step < 5; ++step) {
    Tensor a = empty({1000}, kF32);    // 4000 B
    Tensor b = empty({3, 700}, kF64);  // 16800 B
    Tensor c = empty({300000}, kF64);  // 2.4 MB
    CHECK(memory_stats().in_use_bytes - start.in_use_bytes == a_bytes + b_bytes + c_bytes);
  }
  const MemoryStats after = memory_stats();
  CHECK(after.system_allocations - start.system_allocations == 3);  // the first round only
  CHECK(after.cache_hits - start.cache_hits == 12);                 // the four later rounds
  CHECK(after.in_use_bytes == start.in_use_bytes);
  CHECK(after.cached_bytes == a_bytes + b_bytes + c_bytes);
  CHECK(after.peak_in_use_bytes >= start.in_use_bytes + a_bytes + b_bytes + c_bytes);
  {
    Tensor d = empty({312500}, kF64);  // 2.5 MB: another size in c's class
    CHECK(memory_stats().cache_hits == after.cache_hits + 1);
    CHECK(memory_stats().system_allocations == after.system_allocations);
  }
  empty_cache();
  CHECK(memory_stats().cached_bytes == 0);
  Tensor e = empty({1000}, kF32);  // after emptying: from the system again
  CHECK(memory_stats().system_allocations == after.system_allocations + 1);
}

TEST_CASE("allocator: blocks are 64-byte aligned, live blocks are distinct, the peak resets") {
  FreshCpuCache fresh;
  std::vector<Tensor> live;
  for (int64_t n : {1, 3, 17, 1000, 70000, 300000}) {
    live.push_back(empty({n}, kF32));
    CHECK(reinterpret_cast<uintptr_t>(live.back().data<float>()) % 64 == 0);
  }
  live.push_back(empty({1000}, kF32));  // the same class as a live block: a new block
  CHECK(live[3].data<float>() != live.back().data<float>());
  const int64_t peak = memory_stats().peak_in_use_bytes;
  live.clear();
  CHECK(memory_stats().peak_in_use_bytes == peak);
  reset_peak_memory_stats();
  CHECK(memory_stats().peak_in_use_bytes == memory_stats().in_use_bytes);
}

TEST_CASE("allocator: with caching off every block comes from and goes back to the system") {
  FreshCpuCache fresh;
  set_cpu_caching(false);
  CHECK_FALSE(cpu_caching());
  const MemoryStats start = memory_stats();
  for (int step = 0; step < 3; ++step) Tensor a = empty({1000}, kF32);
  CHECK(memory_stats().system_allocations - start.system_allocations == 3);
  CHECK(memory_stats().cache_hits == start.cache_hits);
  CHECK(memory_stats().cached_bytes == 0);
  CHECK(memory_stats().in_use_bytes == start.in_use_bytes);
}

TEST_CASE("allocator: threads allocating and freeing at once keep the counters consistent") {
  FreshCpuCache fresh;
  const MemoryStats start = memory_stats();
  constexpr int kRounds = 200;
  int threads = 1;
#pragma omp parallel num_threads(4)
  {
#pragma omp single
    threads = omp_get_num_threads();
    for (int r = 0; r < kRounds; ++r) {
      Tensor a = empty({64 + r % 7 * 128}, kF32);  // 7 size classes
      a.data<float>()[0] = 1;                      // the block is usable
    }
  }
  const MemoryStats after = memory_stats();
  CHECK(after.in_use_bytes == start.in_use_bytes);
  CHECK(after.system_allocations + after.cache_hits - start.system_allocations - start.cache_hits ==
        threads * kRounds);
  CHECK(after.system_allocations - start.system_allocations <= threads * 7);  // one block per class and thread
}

TEST_CASE("allocator: memory_stats and empty_cache accept a GPU device without one") {
  if (cuda_device_count() > 0) return;  // tests/core/cuda_test.cpp covers the GPU allocator
  CHECK(memory_stats(Device::cuda()).system_allocations == 0);
  empty_cache(Device::cuda());
  reset_peak_memory_stats(Device::cuda());
}
