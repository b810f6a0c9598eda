#include "apps/fit_console.h"

#include <csignal>

#include <fmt/format.h>

namespace tg::cli {

namespace {
volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int) { interrupted = 1; }
}  // namespace

InterruptScope::InterruptScope() : previous_(std::signal(SIGINT, on_interrupt)) { interrupted = 0; }
InterruptScope::~InterruptScope() { std::signal(SIGINT, previous_); }
bool interrupt_requested() { return interrupted != 0; }

bool print_fit_end(const train::FitResult& r, std::clock_t cpu_start, int64_t step, const train::TrainConfig& config,
                   const std::filesystem::path& checkpoint, Io& io) {
  if (r.stopped) {
    fmt::print(io.out, "interrupted at step {}/{}; checkpoint {} written. Continue with: tapegrad train --resume {}\n",
               step, config.steps, checkpoint.string(), config.out);
    io.status = 130;
    return false;
  }
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  fmt::print(io.out, "done: {} steps in {:.1f} s ({:.1f} s of CPU time; {:.1f} ms/step, {:.0f} tokens/s)\n",
             r.steps_run, r.seconds, cpu_seconds, r.ms_per_step, r.tokens_per_s);
  return true;
}

}  // namespace tg::cli
