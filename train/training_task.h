#pragma once
// TrainingTask: what the Trainer (train/trainer.h) asks of an architecture, so that one training
// loop serves them all. A task owns its data and its model, and says
//   - how the training batches go: the next batch of the whole job (every rank reads it), its
//     rows and input tokens, and for rows [lo, hi) of it the model's logits with the targets
//     they are scored against; where the batches stand (a checkpoint's loader position);
//   - whether a checkpoint's loader position and vocabularies fit this run;
//   - the model's scores on the validation set.
// The Trainer does the rest once for every arch: the loss (cross entropy, the mean over the
// scored positions), the training accuracy (data/metrics.h), gradient accumulation, data-parallel
// ranks, clipping, AdamW and its schedule, the NaN guard with its anomaly-mode re-run,
// checkpoints, exact resume and the progress output.
//
// The tasks: SequenceTask (arch encoder and gpt, train/sequence_task.h) and Seq2SeqTask (arch
// seq2seq, train/seq2seq_task.h); make_training_task builds the one a config names.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/tensor.h"
#include "data/dataloader.h"
#include "data/vocab.h"
#include "nn/module.h"
#include "train/attention_snapshot.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/data_parallel.h"
#include "train/metrics_log.h"
#include "train/model.h"

namespace tg::train {

struct BatchSize {  // a training batch of the whole job
  int64_t rows = 0;    // sequences (examples, pairs)
  int64_t tokens = 0;  // input tokens, not pads: the throughput's count
};

struct ScoredRows {  // rows of a training batch through the model
  Tensor logits;     // (b,T,C)
  Tensor targets;    // (b,T) int64: the class of each position, kIgnoreIndex where nothing is scored
};

class TrainingTask {
 public:
  virtual ~TrainingTask() = default;

  // The model, built from the global generator when the task is (so the seed fixes its weights).
  virtual nn::Module& model() = 0;
  virtual const ModelConfig& model_config() const = 0;
  virtual const data::Vocab& input_vocab() const = 0;   // what the input ids mean (checkpoint metadata)
  virtual const data::Vocab& output_vocab() const = 0;  // what the class ids mean
  virtual const std::vector<int64_t>& unscored_classes() const = 0;  // left out of the accuracies

  // Reads the next training batch (on the device of the model's run).
  virtual BatchSize next_batch() = 0;
  // The model's logits for rows [lo, hi) of the batch next_batch read, with their targets.
  virtual ScoredRows forward(int64_t lo, int64_t hi) = 0;
  // Where the training batches stand: what next_batch reads next.
  virtual data::LoaderState loader_state() const = 0;
  virtual void set_loader_state(const data::LoaderState& state) = 0;
  // Throws tg::Error("resume", "<file>: ...") unless checkpoint `c` (its config already checked
  // against this run's) has this task's vocabularies and its loader where c.step steps end.
  virtual void check_resume(const std::filesystem::path& file, const Checkpoint& c) const = 0;

  // The model's scores on the validation set (its first max_batches batches when > 0), in
  // evaluation mode and without recording; step is left 0. Each rank of `parallel` (may be
  // null) gets the whole job's scores.
  virtual EvalMetrics evaluate(int64_t max_batches, DataParallel* parallel) = 0;
  // The model's attention maps for validation example 0 at `step`; none where the task has none.
  virtual std::optional<AttentionExample> attention_example(int64_t step) = 0;
};

// The task of `config`'s arch and data, once validate(config) passes (errors name the data file
// or the field).
std::unique_ptr<TrainingTask> make_training_task(const TrainConfig& config);

}  // namespace tg::train
