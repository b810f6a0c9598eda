// How a training run chooses the OpenMP threads' wait (core/openmp_wait.h): the choice between
// the brief and the long spin, and the trials that make it. tests/core/openmp_wait.sh checks
// the spin count a program starts with.
#include <doctest/doctest.h>

#include <set>

#include "core/openmp_wait.h"

// libgomp's spin count (core/openmp_wait.cpp), which tapegrad writes where it chooses the wait.
extern "C" unsigned long long gomp_spin_count_var [[gnu::weak]];

namespace tg::test {

TEST_CASE("openmp wait: the long spin is chosen only when its updates were at least 3% faster") {
  CHECK(faster_spin_count({10, 5, 10, 5, 10, 5}) == kLongSpin);
  CHECK(faster_spin_count({5, 10, 5, 10, 5, 10}) == kBriefSpin);
  CHECK(faster_spin_count({10, 9.8, 10, 9.8, 10, 9.8}) == kBriefSpin);  // 2% is noise
  CHECK(faster_spin_count({10, 9.6, 10, 9.6, 10, 9.6}) == kLongSpin);
  // Medians of three: one slow update (an evaluation between two updates, say) does not decide.
  CHECK(faster_spin_count({10, 5, 100, 5, 10, 50}) == kLongSpin);
  CHECK(faster_spin_count({5, 500, 5, 10, 5, 10}) == kBriefSpin);
}

#if TAPEGRAD_OPENMP_STATIC  // libgomp linked statically (cmake/TapegradOpenMP.cmake): its spin count is tapegrad's to set
// With no wait in the environment the trials alternate both spins; with one, the spin count stays.
TEST_CASE("openmp wait: a run tries both spins within every kKeptUpdates + 6 updates, unless the environment chose") {
  REQUIRE(&gomp_spin_count_var != nullptr);
  const unsigned long long at_start = gomp_spin_count_var;
  std::set<unsigned long long> seen;
  for (int update = 0; update < kKeptUpdates + 8; ++update) {
    openmp_update_finished();
    seen.insert(gomp_spin_count_var);
  }
  if (tapegrad_chooses_the_wait())
    CHECK(seen == std::set<unsigned long long>{kBriefSpin, kLongSpin});
  else
    CHECK(seen == std::set<unsigned long long>{at_start});
}
#endif

}  // namespace tg::test
