#pragma once
// What `tapegrad train` does around a trainer's fit(), for every arch: SIGINT (Ctrl-C), SIGTERM
// (what `kill` and job schedulers send) and SIGHUP (the terminal closed) ask the trainer to stop
// after the current step (it writes its checkpoint; the program exits 128 + the signal's number,
// as a shell reports a process the signal ended: 130, 143, 129), and the lines printed when fit()
// ends. A signal during the run's setup (reading the data, building the model, loading the
// checkpoint) stops it before training begins, with nothing written. These lines are printed so
// that output that cannot be written (the terminal gone) changes nothing else: the checkpoint is
// written first, and the exit status stays 128 + the signal. Internal to the program.
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>

#include "apps/commands.h"
#include "train/config.h"
#include "train/data_parallel.h"
#include "train/trainer.h"

namespace tg::cli {

inline constexpr size_t kStopSignalCount = 3;  // SIGINT, SIGTERM, SIGHUP

// While alive, SIGINT, SIGTERM and SIGHUP are recorded instead of ending the process; a SIGHUP
// ignored when the scope began (under nohup) stays ignored. Alive for the whole train command.
class StopSignalScope {
 public:
  StopSignalScope();
  ~StopSignalScope();
  StopSignalScope(const StopSignalScope&) = delete;
  StopSignalScope& operator=(const StopSignalScope&) = delete;

 private:
  struct sigaction previous_[kStopSignalCount];
};

// A trainer's stop_requested while a StopSignalScope is alive: true once a signal came. On a rank
// of a data-parallel job (parallel not null) the ranks decide together after every step (a sum
// over the ranks of three numbers), so that they all stop after the same step, whichever rank
// the signal reached, and agree on the signal.
std::function<bool()> stop_on_signal(train::DataParallel* parallel);

// Whether a signal came while the run was being set up (every rank decides as stop_on_signal's
// check does): if so, prints "stopped by SIGTERM before training began; " and `outcome` ("nothing
// written"), sets io.status to 128 + the signal and returns true.
bool stopped_before_training(train::DataParallel* parallel, const std::string& outcome, Io& io);

// Prints how fit() ended: "done: N steps in ..." (returns true), or "interrupted at step ... by
// SIGTERM" with how to continue, setting io.status to 128 + the signal (returns false).
bool print_fit_end(const train::FitResult& r, std::clock_t cpu_start, int64_t step, const train::TrainConfig& config,
                   const std::filesystem::path& checkpoint, Io& io);

}  // namespace tg::cli
