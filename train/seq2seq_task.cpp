#include "train/seq2seq_task.h"

#include <fmt/format.h>

#include "ops/contiguous/contiguous.h"
#include "ops/slice/slice.h"
#include "train/seq2seq_decode.h"

namespace tg::train {

namespace {

ModelConfig seq2seq_model_config(const TrainConfig& c, const Seq2SeqData& d) {
  return {.vocab_size = d.tokenizer.size(), .num_classes = d.tokenizer.size(), .max_len = d.max_len,
          .d_model = c.d_model, .heads = c.heads, .layers = c.layers, .ff = c.ff, .dropout = c.dropout,
          .causal = false, .arch = "seq2seq", .tie_weights = false, .numerics = c.numerics};
}

}  // namespace

Seq2SeqTask::Seq2SeqTask(const TrainConfig& config)
    : config_(config), data_(make_seq2seq_data(config)), device_(parse_device(config.device)) {
  manual_seed(config_.seed);  // the parameters' initial values, then dropout, draw from it
  model_ = std::make_unique<Seq2SeqModel>(seq2seq_model_config(config_, data_));
  model_->set_checkpoint_activations(config_.checkpoint_activations);
}

BatchSize Seq2SeqTask::next_batch() {
  batch_ = {};  // its memory is free for the next one
  batch_ = make_seq2seq_batch(data_.training_batch(batches_read_++, config_.batch_size), data_.tokenizer, device_);
  return {.rows = batch_.src.size(0), .tokens = batch_.src_tokens + batch_.tgt_tokens};
}

ScoredRows Seq2SeqTask::forward(int64_t lo, int64_t hi) {
  const Seq2SeqBatch& b = batch_;
  if (lo == 0 && hi == b.src.size(0))
    return {.logits = model_->forward(b.src, b.src_padding, b.tgt_in, b.tgt_padding), .targets = b.tgt_out};
  const auto rows = [&](const Tensor& t) { return contiguous(slice(t, 0, lo, hi)); };
  return {.logits = model_->forward(rows(b.src), rows(b.src_padding), rows(b.tgt_in), rows(b.tgt_padding)),
          .targets = rows(b.tgt_out)};
}

data::LoaderState Seq2SeqTask::position(int64_t batches_read) const {
  const int64_t per_epoch = data_.batches_per_epoch(config_.batch_size);
  return per_epoch > 0 ? data::LoaderState{batches_read / per_epoch, batches_read % per_epoch}
                       : data::LoaderState{0, batches_read};
}

void Seq2SeqTask::set_loader_state(const data::LoaderState& state) {
  batches_read_ = state.epoch * data_.batches_per_epoch(config_.batch_size) + state.batch;
}

void Seq2SeqTask::check_resume(const std::filesystem::path& file, const Checkpoint& c) const {
  const data::LoaderState expected = position(c.step * config_.grad_accum);
  if (c.loader != expected)
    throw Error("resume", fmt::format("{}: the loader is at epoch {}, batch {}, but {} steps end at epoch {}, batch {}",
                                      file.string(), c.loader.epoch, c.loader.batch, c.step, expected.epoch,
                                      expected.batch));
  if (c.input_vocab != data_.tokenizer.vocab())
    throw Error("resume", fmt::format("{}: the checkpoint's vocabulary differs from this run's data (the data file "
                                      "changed?)", file.string()));
}

EvalMetrics Seq2SeqTask::evaluate(int64_t max_batches, DataParallel*) {
  std::vector<data::Seq2SeqPair> pairs = data_.val;
  if (max_batches > 0 && std::ssize(pairs) > max_batches * config_.batch_size)
    pairs.resize(static_cast<size_t>(max_batches * config_.batch_size));
  return evaluate_seq2seq(*model_, data_.tokenizer, pairs, {.beam = 0, .batch_size = config_.batch_size});
}

}  // namespace tg::train
