#pragma once
// The loop of Trainer::fit:
//
//   while step < until:  update; report it; evaluate every eval_every steps and at `until`;
//                        after_update(checkpoint_due)   (due after an evaluation, at `until`,
//                                                        and when stop_requested ends the run)
//                        when due and options.write_files: save_checkpoint(), then tell each
//                        observer (train/fit_observer.h)
//
// with the progress bar and metrics.jsonl (when options.write_files) through a Reporter, and the
// timing of FitResult.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "train/fit_observer.h"
#include "train/metrics_log.h"
#include "train/trainer.h"

namespace tg::train {

struct FitSteps {
  std::function<int64_t()> step;            // the updates made so far
  std::function<StepMetrics()> update;      // one update: step() goes up by one
  std::function<EvalMetrics()> evaluate;
  // After every update; checkpoint_due says a checkpoint is due (written next, when options.write_files).
  std::function<void(bool checkpoint_due)> after_update;  // may be empty
  std::function<void()> save_checkpoint;
  std::span<const std::shared_ptr<FitObserver>> observers;  // told after each checkpoint, in order
  std::function<void(const StepMetrics&)> on_step;  // may be empty
  std::function<bool()> stop_requested;             // may be empty
};

// Trains from steps.step() to `until` (-1: config.steps); throws tg::Error("train", ...) when
// until lies outside [step(), config.steps].
FitResult run_fit_loop(const TrainConfig& config, const TrainerOptions& options, int64_t until, const FitSteps& steps);

}  // namespace tg::train
