// How tapegrad's OpenMP threads wait when they have nothing to do, unless the environment says.
//
// A thread with nothing to do (between parallel regions, at a barrier) first spins, then
// sleeps. libgomp spins for GOMP_SPINCOUNT rounds of `pause`, 300,000 by default (milliseconds):
// the fastest on idle cores, but when another process wants one of the cores, the spinning
// thread burns the time slices that the thread it waits for needs, and a training step took
// several times its idle time (docs/benchmarks.md, "Busy machine"). OMP_WAIT_POLICY=passive
// sleeps at once, so every parallel region pays a wake-up on idle cores. tapegrad's default
// spins briefly, then sleeps.
//
// libgomp reads the environment once, in its own initialiser. tapegrad links libgomp
// statically with GCC (cmake/TapegradOpenMP.cmake), so this constructor, of a higher priority,
// runs before that initialiser; the linker is told to keep it (core/CMakeLists.txt). Whoever
// sets OMP_WAIT_POLICY or GOMP_SPINCOUNT keeps their choice. Other OpenMP runtimes ignore
// GOMP_SPINCOUNT.
#include <cstdlib>

namespace {

// Rounds of spinning before a waiting thread sleeps: about 3 us by libgomp's own estimate of
// 100,000 rounds per millisecond, tens of us where `pause` is slow. Chosen by measurement
// (docs/benchmarks.md, "Busy machine").
constexpr const char* kDefaultSpinCount = "300";

}  // namespace

extern "C" [[gnu::constructor(101)]] void tapegrad_openmp_wait_default() {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr)
    setenv("GOMP_SPINCOUNT", kDefaultSpinCount, /*overwrite=*/0);
}
