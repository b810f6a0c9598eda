#pragma once
// SequenceTask: the TrainingTask (train/training_task.h) of arch encoder and gpt, a
// TransformerModel (train/model.h) labelling every position of a task's sequences
// (train/task_data.h), one DataLoader batch at a time:
//   logits = model(inputs, padding_mask)   (B,T,C), scored against targets (B,T)
// Its loader position is the training DataLoader's (epoch, batch); evaluation scores the
// validation loader's batches (evaluate below).
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "data/dataloader.h"
#include "data/metrics.h"
#include "train/task_data.h"
#include "train/training_task.h"

namespace tg::train {

struct EvalOptions {
  int64_t max_batches = 0;                // the first max_batches batches of epoch 0 (0: all)
  std::vector<int64_t> unscored_classes;  // labels left out of the accuracies (TaskData::unscored_classes)
  // Called with every batch in order and the model's predicted classes for it, (B,T) int64.
  std::function<void(const data::Batch& batch, const Tensor& predictions)> on_batch;
  DataParallel* parallel = nullptr;  // each rank scores every world_size-th batch (on_batch sees those); sums them
  // The bytes of text each class stands for (data::TextTokens::text_bytes; empty: the task is not
  // a text's, and has no bits per byte).
  std::span<const int64_t> text_bytes;
};

// The model's loss, token accuracy, exact match and bits per byte on epoch 0 of `loader`, in evaluation mode
// (no dropout) and without recording; `step` is left 0 for the caller to fill in.
EvalMetrics evaluate(TransformerModel& model, data::DataLoader& loader, const EvalOptions& options = {});

class SequenceTask final : public TrainingTask {
 public:
  SequenceTask(const TrainConfig& config, TaskData data);

  TransformerModel& model() override { return *model_; }
  const ModelConfig& model_config() const override { return model_->config; }
  const data::Vocab& input_vocab() const override { return data_.input_vocab; }
  const data::Vocab& output_vocab() const override { return data_.output_vocab; }
  const std::vector<int64_t>& unscored_classes() const override { return data_.unscored_classes; }

  BatchSize next_batch() override;
  ScoredRows forward(int64_t lo, int64_t hi) override;
  data::LoaderState loader_state() const override { return train_loader_->state(); }
  void set_loader_state(const data::LoaderState& state) override { train_loader_->set_state(state); }
  void check_resume(const std::filesystem::path& file, const Checkpoint& c) const override;

  EvalMetrics evaluate(int64_t max_batches, DataParallel* parallel) override;
  std::optional<AttentionExample> attention_example(int64_t step) override;

  const TaskData& data() const { return data_; }

 private:
  TrainConfig config_;
  TaskData data_;
  std::unique_ptr<TransformerModel> model_;
  std::unique_ptr<data::DataLoader> train_loader_, val_loader_;
  data::Batch batch_;  // the one next_batch read
};

}  // namespace tg::train
