// How tapegrad's OpenMP threads wait when they have nothing to do, unless the environment says.
//
// A thread with nothing to do (between parallel regions, at a barrier) first spins, then
// sleeps. libgomp spins for GOMP_SPINCOUNT rounds of `pause`, 300,000 by default (milliseconds):
// the fastest on idle cores, but when another process wants one of the cores, the spinning
// thread burns the time slices that the thread it waits for needs, and a training step took
// several times its idle time (docs/benchmarks.md, "Busy machine"). OMP_WAIT_POLICY=passive
// sleeps at once, so every parallel region pays a wake-up on idle cores. tapegrad's default
// spins briefly, then sleeps, and a training run tries both spins now and then and keeps the
// faster (openmp_update_finished, core/openmp_wait.h): long on idle cores, brief on busy ones.
//
// libgomp reads the environment once, in its own initialiser. tapegrad links libgomp
// statically with GCC (cmake/TapegradOpenMP.cmake), so this constructor, of a higher priority,
// runs before that initialiser; the linker is told to keep it (core/CMakeLists.txt). Whoever
// sets OMP_WAIT_POLICY or GOMP_SPINCOUNT keeps their choice, and nothing tries another. Other
// OpenMP runtimes ignore GOMP_SPINCOUNT, and their spin count is not tapegrad's to change.
#include "core/openmp_wait.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

// libgomp's spin count, which it reads at every wait (its config/linux/wait.h). It is hidden in
// libgomp.a, so it links only into a program that links libgomp statically; this weak
// reference is null in any other.
extern "C" unsigned long long gomp_spin_count_var [[gnu::weak]];

namespace {

bool tapegrad_chose_the_wait = false;

// The trials: updates 2 to 7 alternate the brief and the long spin, then the faster one stays
// for kKeptUpdates updates, and so on.
class SpinChooser {
 public:
  void update_finished() {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (started_) {  // the update that just ended ran with the spin count of position_
      if (position_ < tg::kTrialUpdates)
        ms_[position_] = std::chrono::duration<double, std::milli>(now - last_).count();
      if (++position_ == tg::kTrialUpdates) chosen_ = tg::faster_spin_count(ms_);
      if (position_ == tg::kTrialUpdates + tg::kKeptUpdates) position_ = 0;
    }
    started_ = true;
    last_ = now;
    const unsigned long long trial_spin = position_ % 2 ? tg::kLongSpin : tg::kBriefSpin;
    const unsigned long long next = position_ >= tg::kTrialUpdates ? chosen_ : trial_spin;
    __atomic_store_n(&gomp_spin_count_var, next, __ATOMIC_RELAXED);
  }

 private:
  std::mutex mutex_;
  bool started_ = false;  // the first update's end starts the clock: its own time is the warm-up's
  int position_ = 0;
  std::chrono::steady_clock::time_point last_;
  double ms_[tg::kTrialUpdates] = {};
  unsigned long long chosen_ = tg::kBriefSpin;
};

}  // namespace

extern "C" [[gnu::constructor(101)]] void tapegrad_openmp_wait_default() {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    setenv("GOMP_SPINCOUNT", std::to_string(tg::kBriefSpin).c_str(), /*overwrite=*/0);
    tapegrad_chose_the_wait = true;
  }
}

namespace tg {

bool tapegrad_chooses_the_wait() { return tapegrad_chose_the_wait && &gomp_spin_count_var != nullptr; }

void openmp_update_finished() {
  static SpinChooser chooser;
  if (tapegrad_chooses_the_wait()) chooser.update_finished();
}

unsigned long long faster_spin_count(const double (&ms)[kTrialUpdates]) {
  const auto median = [](double a, double b, double c) {
    return std::max(std::min(a, b), std::min(std::max(a, b), c));
  };
  const double brief = median(ms[0], ms[2], ms[4]), long_spin = median(ms[1], ms[3], ms[5]);
  return long_spin < 0.97 * brief ? kLongSpin : kBriefSpin;
}

}  // namespace tg
