#include "train/attention_snapshot.h"

#include <algorithm>

#include "core/factories.h"

namespace tg::train {

AttentionExample attention_example(TransformerModel& model, const data::Example& example, const data::Vocab& vocab,
                                   int64_t step, int64_t index) {
  const auto T = std::min<int64_t>(static_cast<int64_t>(example.input.size()), kMaxAttentionTokens);
  const std::vector<int64_t> ids(example.input.begin(), example.input.begin() + T);
  AttentionExample a{.step = step, .example = index, .tokens = {}, .heads = model.config.heads, .layers = {}};
  for (int64_t id : ids) a.tokens.push_back(vocab.token(id));
  for (const Tensor& map : model.attention_maps(tensor_i64(ids, {T}, model.embedding->weight.device())))
    a.layers.push_back(map.to_vector<float>());  // (NH,T,T)
  return a;
}

}  // namespace tg::train
