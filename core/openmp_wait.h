#pragma once
// How tapegrad's OpenMP threads wait when they have nothing to do (core/openmp_wait.cpp says
// why it matters).

namespace tg {

// Marks the end of one training update (Optimizer::step calls it). Where tapegrad chose the wait
// (neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT set, GCC's libgomp linked statically), a waiting
// thread spins briefly or long, whichever made the updates faster when both were last tried:
// alternately over updates 2 to 7, then again every kKeptUpdates updates. The wait changes no
// result, only how soon a thread sees that there is work again.
void openmp_update_finished();

// Whether openmp_update_finished chooses the wait in this program: libgomp is linked statically
// and the environment set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT when the program started.
bool tapegrad_chooses_the_wait();

// Updates 2 to 7: the trials, alternately brief and long.
inline constexpr int kTrialUpdates = 6;

// The spin count a trial's update times choose: the long one when its median update is at
// least 3% faster than the brief one's (a spinning thread can cost a busy machine much more
// than a sleeping one costs an idle machine). ms[i] is update i's time; even i spun briefly.
unsigned long long faster_spin_count(const double (&ms)[kTrialUpdates]);

// Rounds of `pause` before a waiting thread sleeps. The brief one, which a program starts with,
// is about 3 us by libgomp's own estimate of 100,000 rounds per millisecond, tens of us where
// `pause` is slow; chosen by measurement (docs/benchmarks.md, "Busy machine").
inline constexpr unsigned long long kBriefSpin = 300;
inline constexpr unsigned long long kLongSpin = 300000;   // libgomp's own default: milliseconds
inline constexpr int kKeptUpdates = 250;

}  // namespace tg
