#pragma once
// Accuracy of per-position predictions against targets with unscored positions.
//   predictions (..., T) int64: the predicted class per position (the argmax of the logits
//                               over the class dim, e.g. tg::max_with_indices(logits, -1).indices)
//   targets     (..., T) int64: the label, or ignore_index where nothing is scored
// A sequence is one row along the last dim. Token accuracy = correct scored positions /
// scored positions; exact match = sequences with every scored position correct / sequences
// with at least one scored position. Counts add up over batches with +=.
// unscored_classes: labels whose positions are left out of both (a padding or separator
// token of the user's data, `--ignore-tokens`), though a loss still counts them.
#include <cstdint>
#include <vector>

#include "core/tensor.h"
#include "data/example.h"

namespace tg::data {

struct Accuracy {
  int64_t correct_tokens = 0;
  int64_t scored_tokens = 0;
  int64_t correct_sequences = 0;
  int64_t scored_sequences = 0;
  int64_t labelled_tokens = 0;  // positions with a label, unscored classes included: a loss's count

  double token_accuracy() const;  // 0 when nothing was scored
  double exact_match() const;     // 0 when no sequence was scored
  Accuracy& operator+=(const Accuracy& other);
};

// Any device and strides; predictions and targets of the same shape, int64, dim >= 1.
Accuracy accuracy(const Tensor& predictions, const Tensor& targets, int64_t ignore_index = kIgnoreIndex,
                  const std::vector<int64_t>& unscored_classes = {});

}  // namespace tg::data
