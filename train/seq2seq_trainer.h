#pragma once
// Seq2SeqTrainer: the training loop of arch seq2seq (a Seq2SeqModel on train/seq2seq_data.h's
// pairs), the Trainer's loop (train/trainer.h) for an encoder-decoder:
//
//   for each of grad_accum micro-batches:  loss = cross_entropy(model(src, tgt_in), tgt_out)
//                                          (mean over target tokens, pads ignored); backward(loss / grad_accum)
//   grad_norm = clip_grad_norm(parameters, clip); lr = scheduler.step(); AdamW step
//
// Every eval_every steps and at the end: the validation pairs are decoded greedily
// (train/seq2seq_decode.h: exact match, token accuracy, teacher-forced loss), then the checkpoint
// (train/checkpoint.h: the same file as the other archs', config arch seq2seq) and metrics.jsonl
// are written to config.out, and the attached observers told (train/fit_observer.h: `tapegrad
// train`'s report.html, curves and config with no attention maps, and metrics.csv).
// A non-finite loss or gradient norm stops the run with a tg::Error("train", ...) naming the step
// and writes nothing.
//
// Exact resume: batch i of a run is a function of (seed, i) alone (Seq2SeqData::training_batch),
// and the checkpoint holds the weights, the optimizer and scheduler state and the global
// generator (dropout), so N steps + resume + N steps give the losses of 2N uninterrupted steps.
// One process only: no data-parallel ranks.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "optim/adam.h"
#include "optim/lr_schedule.h"
#include "train/config.h"
#include "train/fit_observer.h"
#include "train/seq2seq_data.h"
#include "train/seq2seq_model.h"
#include "train/trainer.h"

namespace tg::train {

class Seq2SeqTrainer {
 public:
  explicit Seq2SeqTrainer(const TrainConfig& config, TrainerOptions options = {});

  // Loads a checkpoint (a file or a run directory) written by a run with the same config; what
  // may differ is check_resume's (train/trainer.h). The loader must be where the checkpoint's
  // steps end, the generator past the initial weights' draws.
  void resume(const std::filesystem::path& checkpoint);
  // Trains until step() == until (default: config.steps) or stop_requested() says so.
  FitResult fit(int64_t until = -1);
  // Greedy decoding of the validation pairs (the first eval_batches * batch_size of them when
  // eval_batches > 0).
  EvalMetrics evaluate();
  void save_checkpoint(const std::filesystem::path& path);
  std::filesystem::path checkpoint_path() const;  // <out>/checkpoint.safetensors
  // Told after every checkpoint fit() writes, in the order attached (train/fit_observer.h).
  void attach(std::shared_ptr<FitObserver> observer) { observers_.push_back(std::move(observer)); }

  std::function<bool()> stop_requested;  // polled after every update

  int64_t step() const { return step_; }
  const TrainConfig& config() const { return config_; }
  const Seq2SeqData& data() const { return data_; }
  Seq2SeqModel& model() { return *model_; }

 private:
  StepMetrics train_step();
  // Where the batches of `steps` steps end, as a checkpoint records it.
  data::LoaderState loader_state(int64_t steps) const;

  TrainConfig config_;
  TrainerOptions options_;
  Seq2SeqData data_;
  std::unique_ptr<Seq2SeqModel> model_;
  std::vector<NamedParameter> params_;
  std::unique_ptr<AdamW> optimizer_;
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<std::shared_ptr<FitObserver>> observers_;
  Device device_;
  int64_t step_ = 0;
  uint64_t initial_rng_offset_ = 0;  // the global generator's offset after the initial weights
};

}  // namespace tg::train
