#pragma once
// How many OpenMP parallel regions the program has opened on more than one thread, counted by
// wrapping libgomp's GOMP_parallel (bench/parallel_region_count.cpp): the figure issue 33's "at
// most 30 parallel regions per toy step" is measured by, in tapegrad_train_step_bench, and that
// tests/core/parallel_regions_test.cpp holds kernels to. A region whose `if` clause is false is
// entered with one thread and is not counted: it wakes no other thread.
//
// Counting needs libgomp (GCC's OpenMP) linked statically and the program linked with
// -Wl,--wrap=GOMP_parallel: the object library tapegrad_parallel_region_count
// (cmake/TapegradOpenMP.cmake) brings both where the build has the first; elsewhere (clang and
// its libomp) the count is not available.
#include <cstdint>
#include <optional>

namespace tg::bench {

// Regions opened on more than one thread since the program started; nullopt where this build
// cannot count them.
std::optional<int64_t> parallel_regions();

}  // namespace tg::bench
