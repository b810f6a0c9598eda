#include "data/metrics.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::data {

double Accuracy::token_accuracy() const {
  return scored_tokens == 0 ? 0.0 : static_cast<double>(correct_tokens) / static_cast<double>(scored_tokens);
}

double Accuracy::exact_match() const {
  return scored_sequences == 0 ? 0.0
                               : static_cast<double>(correct_sequences) / static_cast<double>(scored_sequences);
}

Accuracy& Accuracy::operator+=(const Accuracy& other) {
  correct_tokens += other.correct_tokens;
  scored_tokens += other.scored_tokens;
  correct_sequences += other.correct_sequences;
  scored_sequences += other.scored_sequences;
  labelled_tokens += other.labelled_tokens;
  return *this;
}

Accuracy accuracy(const Tensor& predictions, const Tensor& targets, int64_t ignore_index,
                  const std::vector<int64_t>& unscored_classes) {
  check_defined(predictions, "accuracy", "predictions");
  check_defined(targets, "accuracy", "targets");
  if (predictions.dtype() != kI64 || targets.dtype() != kI64)
    throw Error("accuracy", fmt::format("predictions and targets must be int64, got {} and {}",
                                        predictions.describe(), targets.describe()));
  if (predictions.shape() != targets.shape() || predictions.dim() < 1)
    throw Error("accuracy", fmt::format("predictions and targets must have one shape of dim >= 1, got {} and {}",
                                        shape_str(predictions.shape()), shape_str(targets.shape())));
  const std::vector<int64_t> pred = predictions.to_vector<int64_t>(), tgt = targets.to_vector<int64_t>();
  const int64_t T = predictions.size(-1);
  Accuracy acc;
  for (size_t start = 0; T > 0 && start < tgt.size(); start += static_cast<size_t>(T)) {
    int64_t scored = 0, correct = 0;
    for (size_t t = start; t < start + static_cast<size_t>(T); ++t) {
      if (tgt[t] == ignore_index) continue;
      ++acc.labelled_tokens;
      if (std::find(unscored_classes.begin(), unscored_classes.end(), tgt[t]) != unscored_classes.end()) continue;
      ++scored;
      correct += pred[t] == tgt[t];
    }
    acc.scored_tokens += scored;
    acc.correct_tokens += correct;
    acc.scored_sequences += scored > 0;
    acc.correct_sequences += scored > 0 && correct == scored;
  }
  return acc;
}

}  // namespace tg::data
