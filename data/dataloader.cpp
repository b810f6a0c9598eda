#include "data/dataloader.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/factories.h"
#include "data/vocab.h"

namespace tg::data {

Batch collate(const std::vector<Example>& examples, Device device) {
  if (examples.empty()) throw Error("collate", "no examples to batch");
  int64_t T = 0;
  for (size_t b = 0; b < examples.size(); ++b) {
    check_example(examples[b], "collate", fmt::format("example {} of the batch", b));
    T = std::max(T, static_cast<int64_t>(examples[b].input.size()));
  }
  const auto B = static_cast<int64_t>(examples.size());
  std::vector<int64_t> inputs(B * T, kPadId), targets(B * T, kIgnoreIndex);
  std::vector<bool> pad(B * T, true);
  Batch batch;
  for (int64_t b = 0; b < B; ++b) {
    const Example& ex = examples[b];
    const auto len = static_cast<int64_t>(ex.input.size());
    std::copy(ex.input.begin(), ex.input.end(), inputs.begin() + b * T);
    std::copy(ex.target.begin(), ex.target.end(), targets.begin() + b * T);
    std::fill(pad.begin() + b * T, pad.begin() + b * T + len, false);
    batch.lengths.push_back(len);
  }
  batch.inputs = to_device_copy(tensor_i64(inputs, {B, T}), device);
  batch.targets = to_device_copy(tensor_i64(targets, {B, T}), device);
  batch.padding_mask = to_device_copy(tensor_bool(pad, {B, T}), device);
  return batch;
}

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(options) {
  if (!dataset_) throw Error("DataLoader", "the dataset is null");
  if (options_.batch_size < 1)
    throw Error("DataLoader", fmt::format("batch_size must be >= 1, got {}", options_.batch_size));
  if (batches_per_epoch() == 0)
    throw Error("DataLoader", fmt::format("{} examples make no batch of batch_size {}{}", dataset_->size(),
                                          options_.batch_size, options_.drop_last ? " with drop_last" : ""));
}

DataLoader::DataLoader(std::vector<Example> examples, DataLoaderOptions options)
    : DataLoader(std::make_shared<ExampleDataset>(std::move(examples)), options) {}

int64_t DataLoader::batches_per_epoch() const {
  const int64_t n = dataset_->size(), bs = options_.batch_size;
  return options_.drop_last ? n / bs : (n + bs - 1) / bs;
}

std::vector<int64_t> DataLoader::order(int64_t epoch) const {
  const EpochOrder visits(dataset_->size(), options_.shuffle, options_.seed, epoch);
  std::vector<int64_t> list(static_cast<size_t>(visits.size()));
  for (int64_t i = 0; i < visits.size(); ++i) list[static_cast<size_t>(i)] = visits[i];
  return list;
}

const EpochOrder& DataLoader::cached_order(int64_t epoch) {
  if (epoch != cached_epoch_) {
    cached_order_.emplace(dataset_->size(), options_.shuffle, options_.seed, epoch);
    cached_epoch_ = epoch;
  }
  return *cached_order_;
}

Batch DataLoader::batch(int64_t epoch, int64_t index) {
  if (index < 0 || index >= batches_per_epoch())
    throw Error("DataLoader", fmt::format("batch {} is out of range: an epoch has {} batches", index,
                                          batches_per_epoch()));
  const EpochOrder& ord = cached_order(epoch);
  const int64_t begin = index * options_.batch_size;
  const int64_t end = std::min(begin + options_.batch_size, dataset_->size());
  std::vector<Example> examples;
  for (int64_t i = begin; i < end; ++i) examples.push_back(dataset_->get(ord[i]));
  return collate(examples, options_.device);
}

Batch DataLoader::next() {
  Batch b = batch(state_.epoch, state_.batch);
  if (++state_.batch == batches_per_epoch()) state_ = {state_.epoch + 1, 0};
  return b;
}

void DataLoader::set_state(LoaderState state) {
  if (state.epoch < 0 || state.batch < 0 || state.batch >= batches_per_epoch())
    throw Error("DataLoader", fmt::format("state (epoch {}, batch {}) does not exist: an epoch has {} batches",
                                          state.epoch, state.batch, batches_per_epoch()));
  state_ = state;
}

}  // namespace tg::data
