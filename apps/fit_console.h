#pragma once
// What `tapegrad train` does around a trainer's fit(), for every arch: Ctrl-C asks the trainer to
// stop after the current step (it writes its checkpoint; the program exits 130), and the lines
// printed when fit() ends. Internal to the program.
#include <cstdint>
#include <ctime>
#include <filesystem>

#include "apps/commands.h"
#include "train/config.h"
#include "train/trainer.h"

namespace tg::cli {

// While alive, Ctrl-C sets interrupt_requested() instead of ending the process.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  void (*previous_)(int);
};
bool interrupt_requested();

// Prints how fit() ended: "done: N steps in ..." (returns true), or "interrupted at step ..."
// with how to continue, setting io.status to 130 (returns false).
bool print_fit_end(const train::FitResult& r, std::clock_t cpu_start, int64_t step, const train::TrainConfig& config,
                   const std::filesystem::path& checkpoint, Io& io);

}  // namespace tg::cli
