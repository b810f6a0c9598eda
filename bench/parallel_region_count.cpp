#include "bench/parallel_region_count.h"

#include <atomic>

#if TAPEGRAD_COUNT_PARALLEL_REGIONS

#include <omp.h>

namespace {
std::atomic<int64_t> regions{0};
}

// GCC compiles `#pragma omp parallel` into a call of GOMP_parallel(body, data, num_threads, flags);
// num_threads is 1 when the region's `if` clause is false, 0 for the default team (the calling
// thread's omp_get_max_threads(): 1 in a one-thread run, which then opens no region either).
extern "C" void __real_GOMP_parallel(void (*body)(void*), void* data, unsigned num_threads, unsigned flags);
extern "C" void __wrap_GOMP_parallel(void (*body)(void*), void* data, unsigned num_threads, unsigned flags) {
  const unsigned team = num_threads == 0 ? static_cast<unsigned>(omp_get_max_threads()) : num_threads;
  if (team != 1) regions.fetch_add(1, std::memory_order_relaxed);
  __real_GOMP_parallel(body, data, num_threads, flags);
}

namespace tg::bench {
std::optional<int64_t> parallel_regions() { return regions.load(std::memory_order_relaxed); }
}  // namespace tg::bench

#else

namespace tg::bench {
std::optional<int64_t> parallel_regions() { return std::nullopt; }
}  // namespace tg::bench

#endif
