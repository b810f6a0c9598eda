#pragma once
// Attention weights as the page's heatmaps, one per head, labelled with the tokens:
//   [{"layer": label, "head", "queries": [token], "keys": [token], "weights": summary}]
// A weights tensor is (T,S) for one head or (B,NH,T,S) for multi-head attention (batch element
// 0 is shown).
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tape_capture.h"

namespace tg::explore {

using LabelledWeights = std::vector<std::pair<std::string, Tensor>>;  // {"layer 0", weights}

// tokens label both axes (self-attention); an empty list labels them by position.
nlohmann::json attention_maps(const LabelledWeights& weights, const std::vector<std::string>& tokens);

// The outputs of a capture's softmax entries over (T,S) or (B,NH,T,S) scores, labelled by their
// entries ("#7 softmax"): the attention weights of a computation written op by op. Take them
// before backward runs: it frees the tape, and the capture keeps only the entries still on it.
LabelledWeights softmax_outputs(const TapeCapture& capture);

}  // namespace tg::explore
