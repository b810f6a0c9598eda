#include "train/sequence_task.h"

#include <algorithm>
#include <array>
#include <chrono>

#include <fmt/format.h>

#include "core/grad_mode.h"
#include "ops/contiguous/contiguous.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "ops/max/max.h"
#include "ops/slice/slice.h"
#include "train/registry/registry.h"

namespace tg::train {

EvalMetrics evaluate(TransformerModel& model, data::DataLoader& loader, const EvalOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  NoGradGuard no_grad;
  const bool was_training = model.is_training();
  model.eval();
  int64_t batches = loader.batches_per_epoch();
  if (options.max_batches > 0) batches = std::min(batches, options.max_batches);
  double loss_sum = 0;
  std::array<double, 1> text_bytes = {0};  // of the labelled targets
  data::Accuracy acc;
  const int64_t first = options.parallel ? options.parallel->rank() : 0;
  const int64_t stride = options.parallel ? options.parallel->world_size() : 1;
  for (int64_t i = first; i < batches; i += stride) {
    data::Batch b = loader.batch(0, i);
    Tensor logits = model.forward(b.inputs, b.padding_mask);  // (B,T,C)
    loss_sum += cross_entropy(logits, b.targets, {.reduction = Reduction::sum}).item();
    const Tensor predictions = max_with_indices(logits, -1).indices;  // (B,T)
    acc += data::accuracy(predictions, b.targets, data::kIgnoreIndex, options.unscored_classes);
    if (!options.text_bytes.empty())
      for (int64_t target : b.targets.to_vector<int64_t>())
        if (target != data::kIgnoreIndex) text_bytes[0] += static_cast<double>(options.text_bytes[target]);
    if (options.on_batch) options.on_batch(b, predictions);
  }
  if (options.parallel) {
    acc = summed(*options.parallel, acc, loss_sum);
    options.parallel->sum(text_bytes);
  }
  model.train(was_training);
  const double loss = loss_sum / static_cast<double>(std::max<int64_t>(acc.labelled_tokens, 1));
  return {.loss = loss,
          .token_accuracy = acc.token_accuracy(),
          .exact_match = acc.exact_match(),
          .sequences = acc.scored_sequences,
          .ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
          .scored_tokens = acc.scored_tokens,
          .bits_per_byte = data::bits_per_byte(loss, acc.labelled_tokens, static_cast<int64_t>(text_bytes[0]))};
}

SequenceTask::SequenceTask(const TrainConfig& config, TaskData data) : config_(config), data_(std::move(data)) {
  manual_seed(config_.seed);  // the parameters' initial values, then dropout, draw from it
  model_ = std::make_unique<TransformerModel>(train::model_config(config_, data_));
  model_->set_checkpoint_activations(config_.checkpoint_activations);
  const Device device = parse_device(config_.device);
  train_loader_ = std::make_unique<data::DataLoader>(
      data_.train, data::DataLoaderOptions{.batch_size = config_.batch_size, .shuffle = data_.shuffle,
                                           .seed = config_.seed, .device = device});
  val_loader_ = std::make_unique<data::DataLoader>(
      data_.val, data::DataLoaderOptions{.batch_size = config_.batch_size, .shuffle = false, .device = device});
}

BatchSize SequenceTask::next_batch() {
  batch_ = {};  // its memory is free for the next one
  batch_ = train_loader_->next();
  BatchSize size{.rows = std::ssize(batch_.lengths)};
  for (int64_t len : batch_.lengths) size.tokens += len;
  return size;
}

ScoredRows SequenceTask::forward(int64_t lo, int64_t hi) {
  if (lo == 0 && hi == std::ssize(batch_.lengths))
    return {.logits = model_->forward(batch_.inputs, batch_.padding_mask), .targets = batch_.targets};
  const auto rows = [&](const Tensor& t) { return contiguous(slice(t, 0, lo, hi)); };
  return {.logits = model_->forward(rows(batch_.inputs), rows(batch_.padding_mask)), .targets = rows(batch_.targets)};
}

void SequenceTask::check_resume(const std::filesystem::path& file, const Checkpoint& c) const {
  // The loader has read step * grad_accum batches since the start of the run. (The synthetic
  // tasks size their training set to the run's steps, so a longer run's epochs are longer.)
  const int64_t batches_read = c.step * config_.grad_accum, per_epoch = train_loader_->batches_per_epoch();
  const data::LoaderState expected{batches_read / per_epoch, batches_read % per_epoch};
  const bool same_epochs = c.config.steps == config_.steps || !task_named(config_.task).data_sized_by_steps;
  if (same_epochs && c.loader != expected)
    throw Error("resume", fmt::format("{}: the loader is at epoch {}, batch {}, but {} steps of {} batches end at "
                                      "epoch {}, batch {} ({} batches an epoch)", file.string(), c.loader.epoch,
                                      c.loader.batch, c.step, config_.grad_accum, expected.epoch, expected.batch,
                                      per_epoch));
}

EvalMetrics SequenceTask::evaluate(int64_t max_batches, DataParallel* parallel) {
  return train::evaluate(*model_, *val_loader_,
                         {.max_batches = max_batches, .unscored_classes = data_.unscored_classes, .on_batch = nullptr,
                          .parallel = parallel,
                          .text_bytes = data_.text ? data_.text->text_bytes() : std::span<const int64_t>()});
}

std::optional<AttentionExample> SequenceTask::attention_example(int64_t step) {
  if (data_.val->size() == 0) return std::nullopt;
  return train::attention_example(*model_, data_.val->get(0), data_.input_vocab, step);
}

}  // namespace tg::train
