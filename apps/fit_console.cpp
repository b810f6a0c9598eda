#include "apps/fit_console.h"

#include <array>
#include <cstdio>
#include <string>

#include <fmt/format.h>

namespace tg::cli {

namespace {

struct StopSignal {
  int number;
  const char* name;
};
// In the order that decides which signal a job reports when its ranks got different ones.
constexpr std::array<StopSignal, kStopSignalCount> kStopSignals{
    {{SIGINT, "SIGINT"}, {SIGTERM, "SIGTERM"}, {SIGHUP, "SIGHUP"}}};

volatile std::sig_atomic_t received = 0;  // the first signal since the scope began (the handler's)
int stopping = 0;                         // the signal the run stopped for (the stop check's)

extern "C" void on_stop_signal(int number) {
  if (received == 0) received = number;
}

const char* signal_name(int number) {
  for (const StopSignal& s : kStopSignals)
    if (s.number == number) return s.name;
  return "a signal";
}

// The signal that every rank stops for: the first of kStopSignals that any rank received (0: none).
int agreed_signal(train::DataParallel& parallel) {
  std::array<double, kStopSignals.size()> counts{};  // ranks that received each signal
  for (size_t k = 0; k < kStopSignals.size(); ++k) counts[k] = received == kStopSignals[k].number ? 1 : 0;
  parallel.sum(counts);
  for (size_t k = 0; k < kStopSignals.size(); ++k)
    if (counts[k] > 0) return kStopSignals[k].number;
  return 0;
}

// Prints `text` to `to` and flushes it, whether or not they can be written: the line that says
// how a run ended must not end it another way (fmt::print throws when a write fails, and the
// terminal may be gone: SIGHUP).
void print_whatever_happens(std::FILE* to, const std::string& text) {
  std::fputs(text.c_str(), to);
  std::fflush(to);  // under mpirun, a rank that exits first makes mpirun end the others
}

}  // namespace

// SA_RESTART: a read or write the signal interrupts carries on, as it would without a handler.
// nohup runs a program with SIGHUP ignored so that it outlives the terminal: that stays so.
StopSignalScope::StopSignalScope() {
  received = 0, stopping = 0;
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (size_t k = 0; k < kStopSignals.size(); ++k) {
    sigaction(kStopSignals[k].number, nullptr, &previous_[k]);
    const bool under_nohup = kStopSignals[k].number == SIGHUP && previous_[k].sa_handler == SIG_IGN;
    if (!under_nohup) sigaction(kStopSignals[k].number, &action, nullptr);
  }
}

StopSignalScope::~StopSignalScope() {
  for (size_t k = 0; k < kStopSignals.size(); ++k) sigaction(kStopSignals[k].number, &previous_[k], nullptr);
}

std::function<bool()> stop_on_signal(train::DataParallel* parallel) {
  return [parallel] {
    stopping = parallel != nullptr ? agreed_signal(*parallel) : static_cast<int>(received);
    return stopping != 0;
  };
}

bool stopped_before_training(train::DataParallel* parallel, const std::string& outcome, Io& io) {
  if (!stop_on_signal(parallel)()) return false;
  io.status = 128 + stopping;
  print_whatever_happens(io.out, fmt::format("tapegrad train: stopped by {} before training began; {}\n",
                                             signal_name(stopping), outcome));
  return true;
}

bool print_fit_end(const train::FitResult& r, std::clock_t cpu_start, int64_t step, const train::TrainConfig& config,
                   const std::filesystem::path& checkpoint, Io& io) {
  if (r.stopped) {
    io.status = 128 + stopping;
    print_whatever_happens(io.out, fmt::format("interrupted at step {}/{} by {}; checkpoint {} written. Continue "
                                               "with: tapegrad train --resume {}\n", step, config.steps,
                                               signal_name(stopping), checkpoint.string(), config.out));
    return false;
  }
  const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
  fmt::print(io.out, "done: {} steps in {:.1f} s ({:.1f} s of CPU time; {:.1f} ms/step, {:.0f} tokens/s)\n",
             r.steps_run, r.seconds, cpu_seconds, r.ms_per_step, r.tokens_per_s);
  return true;
}

}  // namespace tg::cli
