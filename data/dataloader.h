#pragma once
// DataLoader: examples -> padded batches, in a seeded random order, resumable exactly.
//
//   B = examples in the batch, T = the longest example's length in the batch
//   inputs        (B,T) int64  token ids, <pad> (id 0) after each example's end
//   targets       (B,T) int64  label ids, kIgnoreIndex (-100) at pads and unscored positions
//   padding_mask  (B,T) bool   true = pad (masked out, the one meaning of true in tapegrad)
//   lengths       B            each example's length before padding
//
// The loader builds the padding mask only. A model that must not look ahead (the character
// language model) also builds causal_mask(T) (ops/attention) and combines the two.
//
// Order: epoch e visits the examples in EpochOrder(N, shuffle, seed, e) (data/epoch_order.h: a
// random permutation, listed up to 4M examples and computed per position beyond), cut into
// batches of batch_size; the last, shorter batch is kept unless drop_last. The order depends
// only on (seed, epoch), so the same seed gives the same batches, and a loader restored to a
// saved state() continues exactly where the saved one was.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/device.h"
#include "core/tensor.h"
#include "data/epoch_order.h"
#include "data/example.h"

namespace tg::data {

struct Batch {
  Tensor inputs;        // (B,T) int64
  Tensor targets;       // (B,T) int64
  Tensor padding_mask;  // (B,T) bool, true = pad
  std::vector<int64_t> lengths;
};

// Pads examples into one batch (checks each example; at least one).
Batch collate(const std::vector<Example>& examples, Device device = kCPU);

struct DataLoaderOptions {
  int64_t batch_size = 32;
  bool shuffle = true;
  bool drop_last = false;
  uint64_t seed = 0;
  Device device = kCPU;  // where the batch tensors are made
};

// Where a loader is: the batch next() returns is batch `batch` of epoch `epoch`. Saving these
// two numbers with a checkpoint and calling set_state() on a loader with the same dataset
// and options resumes exactly.
struct LoaderState {
  int64_t epoch = 0;
  int64_t batch = 0;
  bool operator==(const LoaderState&) const = default;
};

class DataLoader {
 public:
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  DataLoader(std::vector<Example> examples, DataLoaderOptions options = {});  // an ExampleDataset

  int64_t batches_per_epoch() const;
  // The batch at state(), then the state moves on (to batch 0 of the next epoch after the last).
  Batch next();
  // Any batch, without moving the state.
  Batch batch(int64_t epoch, int64_t index);
  // The example indices in the order epoch `epoch` visits them, as a list of N.
  std::vector<int64_t> order(int64_t epoch) const;

  LoaderState state() const { return state_; }
  void set_state(LoaderState state);  // checks that the batch exists

  const Dataset& dataset() const { return *dataset_; }
  const DataLoaderOptions& options() const { return options_; }

 private:
  const EpochOrder& cached_order(int64_t epoch);

  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  LoaderState state_;
  int64_t cached_epoch_ = -1;  // the epoch whose order cached_order_ holds
  std::optional<EpochOrder> cached_order_;
};

}  // namespace tg::data
