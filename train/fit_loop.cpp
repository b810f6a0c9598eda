#include "train/fit_loop.h"

#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "ops/matmul/gemm_tuning.h"
#include "train/report.h"

namespace tg::train {

namespace {

// Times the micro-kernels on the products the update met for the first time (where a program
// turned GEMM tuning on: ops/matmul/gemm_tuning.h), between two updates so that no update's time
// includes it.
void tune_new_products(std::FILE* console) {
  const GemmTuningReport tuned = gemm_tune_pending();
  if (!tuned.warning.empty() && console) fmt::print(stderr, "{}\n", tuned.warning);
}

}  // namespace

FitResult run_fit_loop(const TrainConfig& config, const TrainerOptions& options, int64_t until, const FitSteps& steps) {
  if (until < 0) until = config.steps;
  if (until > config.steps || until < steps.step())
    throw Error("train", fmt::format("fit: cannot train from step {} to step {} (steps = {})", steps.step(), until,
                                     config.steps));
  const auto start = std::chrono::steady_clock::now();
  Reporter reporter(options.console, steps.step(), until, config.log_every);
  if (options.write_files) {
    std::filesystem::create_directories(config.out);
    reporter.open_log(std::filesystem::path(config.out) / "metrics.jsonl", steps.step());
  }
  FitResult r;
  double update_ms = 0;
  int64_t tokens = 0;
  while (steps.step() < until) {
    const StepMetrics m = steps.update();
    tune_new_products(options.console);
    reporter.step(m);
    if (steps.on_step) steps.on_step(m);
    ++r.steps_run, update_ms += m.ms, tokens += m.tokens;
    const int64_t step = steps.step();
    r.stopped = steps.stop_requested && steps.stop_requested();
    // A stop skips no evaluation that is due: the resumed run would not make it, and its records
    // would differ from an uninterrupted run's.
    if (step == until || (config.eval_every > 0 && step % config.eval_every == 0)) {
      r.eval = steps.evaluate();
      reporter.eval(r.eval);
    }
    const bool checkpoint_due = r.stopped || step == until || r.eval.step == step;
    if (steps.after_update) steps.after_update(checkpoint_due);
    if (options.write_files && checkpoint_due) {
      steps.save_checkpoint();
      for (const std::shared_ptr<FitObserver>& observer : steps.observers)
        observer->checkpoint_written(step, reporter.log());
    }
    if (r.stopped) break;
  }
  if (r.steps_run == 0) r.eval = steps.evaluate();
  reporter.finish();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.ms_per_step = r.steps_run > 0 ? update_ms / static_cast<double>(r.steps_run) : 0;
  r.tokens_per_s = update_ms > 0 ? static_cast<double>(tokens) / (update_ms / 1e3) : 0;
  return r;
}

}  // namespace tg::train
