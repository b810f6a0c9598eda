#pragma once
// Trainer: the one training loop of every arch, over a TrainingTask (train/training_task.h: the
// data, the model and how a batch is scored; SequenceTask for encoder and gpt, Seq2SeqTask for
// seq2seq).
//
//   Trainer trainer(config);            // the task of config.arch, its model (seeded), AdamW, warmup + cosine LR
//   trainer.resume("runs/x");           // optional: continue a checkpointed run exactly
//   FitResult r = trainer.fit();        // train to config.steps, evaluating on the way
//
// One update (step s = 1, 2, ...):
//   for each of grad_accum micro-batches:  logits, targets = task.forward(task.next_batch())
//                                          loss = cross_entropy(logits, targets)  (mean over scored positions)
//                                          backward(loss / grad_accum)
//   grad_norm = clip_grad_norm(parameters, clip)      (measured before clipping)
//   NaN guard: a non-finite loss or grad_norm stops the run (below)
//   lr = scheduler.step(); optimizer.step(); optimizer.zero_grad()
// Every eval_every steps and at the end: the task evaluates the model on the validation set, then
// the checkpoint (train/checkpoint.h) is written to <out>/checkpoint.safetensors, then the
// attached observers told (train/fit_observer.h: `tapegrad train`'s report.html and metrics.csv).
//
// Exact resume: the checkpoint holds the weights, the optimizer and scheduler state, the
// global generator (dropout) and the task's loader position, so N steps + resume + N steps
// give bit for bit the losses of 2N uninterrupted steps (same thread count).
//
// NaN guard: when the loss or a gradient is not finite, the step's forward and backward run
// again on the same batch and random state under AnomalyGuard, which stops at the first op
// producing a NaN or Inf; fit() then throws a tg::Error("train", ...) naming the step and that
// op. Nothing is written, so the last good checkpoint stays as it was; the Trainer stays at the
// step before (its loader and generator as they were), with whatever made the values non-finite.
//
// Data-parallel (TrainerOptions::parallel, one rank of N; dist/ runs it on MPI): every rank reads
// the same global batches and trains on rows [B*r/N, B*(r+1)/N) of each. Its loss is its sum over
// scored positions divided by the whole batch's count, so the gradients summed over the ranks
// are one process's and clipping and AdamW take the same step on every rank. Rank r's dropout at
// step s draws from counter (r + 1) * 2^56 + s * 2^32 of the seed's stream: reproducible, exact
// on resume, and apart from the other ranks' (for 2^24 steps). Every kCheckParametersEvery steps and before each checkpoint the ranks compare a hash
// of their parameters. The loader's position counts global batches, so a checkpoint resumes
// with any N.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "data/dataloader.h"
#include "data/metrics.h"
#include "optim/adam.h"
#include "optim/lr_schedule.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/data_parallel.h"
#include "train/fit_observer.h"
#include "train/model.h"
#include "train/training_task.h"

namespace tg::train {

struct TrainerOptions {
  std::FILE* console = stdout;  // progress and log lines; nullptr = silent
  bool write_files = true;      // the checkpoint and metrics.jsonl in config.out, and the observers told of each checkpoint
  std::shared_ptr<DataParallel> parallel = nullptr;  // this process is one rank of a data-parallel job; null: one process
};

inline constexpr int64_t kCheckParametersEvery = 50;  // steps between the ranks' parameter comparisons

struct FitResult {
  EvalMetrics eval;          // the last evaluation
  int64_t steps_run = 0;     // updates this call made
  bool stopped = false;      // stop_requested ended the run early
  double seconds = 0;        // wall time of this call, evaluations included
  double ms_per_step = 0;    // mean wall time of an update
  double tokens_per_s = 0;   // input tokens per second of update time
};

// Throws tg::Error("resume", ...) unless a run with `config` and `model` may continue checkpoint
// `c` (read from `file`): only steps, eval_every, log_every, eval_batches, out and ignore_tokens
// may differ, the model must be the same, and the checkpoint no further than config.steps.
void check_resume(const std::filesystem::path& file, const Checkpoint& c, const TrainConfig& config,
                  const ModelConfig& model);

class Trainer {
 public:
  explicit Trainer(const TrainConfig& config, TrainerOptions options = {});  // make_training_task(config)
  Trainer(const TrainConfig& config, std::unique_ptr<TrainingTask> task, TrainerOptions options = {});

  // Loads a checkpoint (a file or a run directory) written by a run with the same config; only
  // steps, eval_every, log_every, eval_batches, out and ignore_tokens may differ (others are an
  // error naming them). A changed `steps` stretches the LR schedule to the new total. A failed
  // resume writes nothing, but may leave this Trainer half restored: build a new one.
  void resume(const std::filesystem::path& checkpoint);

  // Trains until step() == until (default: config.steps) or stop_requested() says so.
  FitResult fit(int64_t until = -1);
  // One update (above), with no evaluation, checkpoint or output: for a caller that runs its own
  // loop (the live lab, lab/lab_training.h). Throws tg::Error("train", ...) once step() is
  // config.steps.
  StepMetrics update();
  EvalMetrics evaluate();
  void save_checkpoint(const std::filesystem::path& path);
  std::filesystem::path checkpoint_path() const;  // <out>/checkpoint.safetensors
  // Told after every checkpoint fit() writes, in the order attached (train/fit_observer.h).
  void attach(std::shared_ptr<FitObserver> observer) { observers_.push_back(std::move(observer)); }

  std::function<void(const StepMetrics&)> on_step;  // after every update
  std::function<bool()> stop_requested;             // polled after every update

  int64_t step() const { return step_; }
  const TrainConfig& config() const { return config_; }
  TrainingTask& task() { return *task_; }
  nn::Module& model() { return task_->model(); }
  Optimizer& optimizer() { return *optimizer_; }
  // The task as its class (SequenceTask, Seq2SeqTask): its typed model and data.
  template <class Task> Task& task_as() {
    if (auto* t = dynamic_cast<Task*>(task_.get())) return *t;
    throw Error("Trainer", fmt::format("the run of arch {} has another task than the one asked for", config_.arch));
  }

 private:
  struct Pass {  // what one update's forward and backward passes saw
    double loss = 0;
    data::Accuracy accuracy;
    int64_t tokens = 0;
  };
  Pass forward_backward();
  void micro_batch(Pass& p, int64_t rows);                    // one of forward_backward(), in one process
  void micro_batch_shard(Pass& p, int64_t rows, bool last);  // the same on one rank (TrainerOptions::parallel)
  [[noreturn]] void stop_non_finite(const StepMetrics& m, data::LoaderState loader, Generator rng);

  TrainConfig config_;
  TrainerOptions options_;
  std::unique_ptr<TrainingTask> task_;
  std::vector<NamedParameter> params_;
  std::unique_ptr<AdamW> optimizer_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<std::shared_ptr<FitObserver>> observers_;
  Device device_;  // where the model, the batches and the optimizer state live
  int64_t step_ = 0;
  int64_t last_checkpoint_step_ = 0;  // 0: none written (or resumed from) yet
  uint64_t initial_rng_offset_ = 0;   // the global generator's offset after the initial weights
};

}  // namespace tg::train
