#pragma once
// A snapshot of a model's attention: every layer's and head's weights for one example, with its
// tokens. The report page draws it as heatmaps (report/report_page.h); `tapegrad train` takes one
// of validation example 0 at every checkpoint (report/run_page_observer.h), `tapegrad report`
// one from a run's checkpoint.
#include <cstdint>
#include <string>
#include <vector>

#include "data/example.h"
#include "data/vocab.h"
#include "train/model.h"

namespace tg::train {

// A snapshot shows at most this many tokens of the example: its first kMaxAttentionTokens, run
// through the model on their own (for a causal model, exactly the maps of the whole example's
// first positions).
inline constexpr int64_t kMaxAttentionTokens = 64;

struct AttentionExample {
  int64_t step = 0;                        // the weights' training step
  int64_t example = 0;                     // its index in the validation set
  std::vector<std::string> tokens;         // T input tokens
  int64_t heads = 0;                       // NH
  std::vector<std::vector<float>> layers;  // per layer (NH,T,T) row-major: head, query, key
};

// `model`'s attention maps (TransformerModel::attention_maps) for `example`'s input, its tokens
// named by `vocab`.
AttentionExample attention_example(TransformerModel& model, const data::Example& example, const data::Vocab& vocab,
                                   int64_t step, int64_t index = 0);

}  // namespace tg::train
