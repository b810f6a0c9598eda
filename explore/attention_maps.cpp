#include "explore/attention_maps.h"

#include <fmt/format.h>

#include "core/grad_mode.h"
#include "explore/tensor_summary.h"
#include "ops/reshape/reshape.h"
#include "ops/slice/slice.h"
#include "ops/squeeze/squeeze.h"

namespace tg::explore {

namespace {

std::vector<std::string> labels(const std::vector<std::string>& tokens, int64_t count) {
  if (static_cast<int64_t>(tokens.size()) == count) return tokens;
  std::vector<std::string> positions;
  for (int64_t i = 0; i < count; ++i) positions.push_back(fmt::format("{}", i));
  return positions;
}

}  // namespace

nlohmann::json attention_maps(const LabelledWeights& weights, const std::vector<std::string>& tokens) {
  NoGradGuard no_grad;
  nlohmann::json maps = nlohmann::json::array();
  for (const auto& [layer, w] : weights) {
    const Tensor heads = w.dim() == 2 ? reshape(w, {1, w.size(0), w.size(1)}) : squeeze(slice(w, 0, 0, 1), 0);
    for (int64_t h = 0; h < heads.size(0); ++h) {
      const Tensor one = squeeze(slice(heads, 0, h, h + 1), 0);  // (T,S)
      maps.push_back({{"layer", layer},
                      {"head", h},
                      {"queries", labels(tokens, one.size(0))},
                      {"keys", labels(tokens, one.size(1))},
                      {"weights", summarize(one)}});
    }
  }
  return maps;
}

LabelledWeights softmax_outputs(const TapeCapture& capture) {
  LabelledWeights found;
  for (const CapturedEntry& c : capture.entries())
    if (c.entry->op == "softmax" && (c.outputs.at(0).dim() == 2 || c.outputs.at(0).dim() == 4))
      found.emplace_back(fmt::format("#{} softmax", c.entry->tape_position), c.outputs[0]);
  return found;
}

}  // namespace tg::explore
