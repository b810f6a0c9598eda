#pragma once
// Text generation with a causal model (the character language model):
//   repeat max_new_tokens times:
//     context = the last max_len ids                         (1,T)
//     logits  = model(context)[0, T-1, :]                    (C)
//     next    = argmax(logits[min_id:])                      temperature == 0 (greedy)
//             | a draw from softmax(logits[min_id:] / temperature)   temperature > 0
// The draws come from a Philox Generator(seed): the same seed gives the same text.
#include <cstdint>
#include <vector>

#include "train/model.h"

namespace tg::train {

struct GenerateOptions {
  int64_t max_new_tokens = 200;
  double temperature = 0;  // 0 = greedy; > 0 samples
  uint64_t seed = 0;
  int64_t min_id = 0;      // ids below it are never produced (data::kNumReserved: no reserved tokens)
};

// Returns prompt followed by the generated ids. The model must be causal and the prompt
// non-empty (tg::Error("generate", ...) otherwise). Runs in evaluation mode without recording.
std::vector<int64_t> generate(TransformerModel& model, std::vector<int64_t> prompt, const GenerateOptions& options);

}  // namespace tg::train
