#pragma once
// The attention weights of a recorded computation, for the page's heatmaps: the output of
// every softmax entry over (T,S) scores, i.e. (T,S) for one head or (B,NH,T,S) for
// multi-head attention (batch element 0). On the composed path the model's only softmax
// entries are its attention's, in layer order, so entry k is layer k.
//   [{"layer", "head", "queries": [token], "keys": [token], "weights": summary}]
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tape_capture.h"

namespace tg::explore {

// tokens label both axes (self-attention); an empty list labels them by position.
nlohmann::json attention_maps(const TapeCapture& capture, const std::vector<std::string>& tokens);

}  // namespace tg::explore
