#include "train/data_parallel.h"

#include <array>

namespace tg::train {

data::Accuracy summed(DataParallel& parallel, const data::Accuracy& acc, double& value) {
  std::array<double, 6> v = {value,
                             static_cast<double>(acc.correct_tokens),
                             static_cast<double>(acc.scored_tokens),
                             static_cast<double>(acc.correct_sequences),
                             static_cast<double>(acc.scored_sequences),
                             static_cast<double>(acc.labelled_tokens)};
  parallel.sum(v);
  value = v[0];
  return {.correct_tokens = static_cast<int64_t>(v[1]), .scored_tokens = static_cast<int64_t>(v[2]),
          .correct_sequences = static_cast<int64_t>(v[3]), .scored_sequences = static_cast<int64_t>(v[4]),
          .labelled_tokens = static_cast<int64_t>(v[5])};
}

}  // namespace tg::train
