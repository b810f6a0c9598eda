#pragma once
// Seq2SeqTask: the TrainingTask (train/training_task.h) of arch seq2seq, a Seq2SeqModel
// (train/seq2seq_model.h) on train/seq2seq_data.h's pairs, trained with teacher forcing:
//   logits = model(src, src_padding, tgt_in, tgt_padding)   (B,T,V), scored against tgt_out (B,T)
// (pads are kIgnoreIndex). Batch i of a run is a function of (seed, i) alone
// (Seq2SeqData::training_batch), so its loader position is the count of batches read, as
// (epoch, batch) of a file's epochs (a shipped task has one endless epoch). Evaluation decodes the
// validation pairs greedily (train/seq2seq_decode.h: exact match, token accuracy, teacher-forced
// loss); every rank of a data-parallel run decodes them all. No attention maps.
#include <cstdint>
#include <memory>
#include <vector>

#include "train/seq2seq_data.h"
#include "train/seq2seq_model.h"
#include "train/training_task.h"

namespace tg::train {

class Seq2SeqTask final : public TrainingTask {
 public:
  explicit Seq2SeqTask(const TrainConfig& config);

  Seq2SeqModel& model() override { return *model_; }
  const ModelConfig& model_config() const override { return model_->config; }
  const data::Vocab& input_vocab() const override { return data_.tokenizer.vocab(); }
  const data::Vocab& output_vocab() const override { return data_.tokenizer.vocab(); }
  const std::vector<int64_t>& unscored_classes() const override { return no_classes_; }

  BatchSize next_batch() override;
  ScoredRows forward(int64_t lo, int64_t hi) override;
  data::LoaderState loader_state() const override { return position(batches_read_); }
  void set_loader_state(const data::LoaderState& state) override;
  void check_resume(const std::filesystem::path& file, const Checkpoint& c) const override;

  EvalMetrics evaluate(int64_t max_batches, DataParallel* parallel) override;
  std::optional<AttentionExample> attention_example(int64_t) override { return std::nullopt; }

  const Seq2SeqData& data() const { return data_; }

 private:
  data::LoaderState position(int64_t batches_read) const;  // as a checkpoint records it

  TrainConfig config_;
  Seq2SeqData data_;
  std::unique_ptr<Seq2SeqModel> model_;
  Device device_;
  int64_t batches_read_ = 0;
  Seq2SeqBatch batch_;  // the one next_batch read
  std::vector<int64_t> no_classes_;  // a seq2seq run scores every target token
};

}  // namespace tg::train
