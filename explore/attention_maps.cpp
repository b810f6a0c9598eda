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

nlohmann::json attention_maps(const TapeCapture& capture, const std::vector<std::string>& tokens) {
  NoGradGuard no_grad;
  nlohmann::json maps = nlohmann::json::array();
  int64_t layer = 0;
  for (const CapturedEntry& c : capture.entries()) {
    if (c.entry->op != "softmax" || c.outputs.empty()) continue;
    const Tensor& w = c.outputs[0];
    if (w.dim() != 2 && w.dim() != 4) continue;
    const Tensor heads = w.dim() == 2 ? reshape(w, {1, w.size(0), w.size(1)}) : squeeze(slice(w, 0, 0, 1), 0);
    for (int64_t h = 0; h < heads.size(0); ++h) {
      const Tensor one = squeeze(slice(heads, 0, h, h + 1), 0);  // (T,S)
      maps.push_back({{"layer", layer},
                      {"head", h},
                      {"queries", labels(tokens, one.size(0))},
                      {"keys", labels(tokens, one.size(1))},
                      {"weights", summarize(one)}});
    }
    ++layer;
  }
  return maps;
}

}  // namespace tg::explore
