#pragma once
// One example through a model, recorded as tapegrad explore's page shows it (explore/recording.h):
// in evaluation mode (no dropout), on the composed path (every op of the model on the tape: no
// fused attention, relu_dropout or linear), with each attention's weights as labelled heatmaps.
//
//   nlohmann::json rec = record_model_example(model, example, tokens, classes);
//
// `tokens` names the example's input tokens (they label the attention maps), `classes` the
// model's output classes. Besides the recording's fields, rec["attention"] and
//   "prediction": [per position: {"token", "target": class name or null where nothing is scored,
//                  "predicted": the most likely class, "p_predicted", "p_target" (null likewise)}] Afterwards the
// model's training mode and composed path are as they were, and its parameters hold no gradient
// (record it between updates, as the Trainer drops them after each).
// `tapegrad explore RUN_DIR` records a trained run's example with it; the lab, the model it is
// training.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "data/example.h"
#include "explore/recording.h"
#include "train/model.h"

namespace tg::explore {

nlohmann::json record_model_example(train::TransformerModel& model, const data::Example& example,
                                    const std::vector<std::string>& tokens, const std::vector<std::string>& classes,
                                    Graphs graphs = Graphs::kDot);

// The "prediction" above from the model's logits for the example, (1,T,C).
nlohmann::json prediction_json(const Tensor& logits, const data::Example& example,
                               const std::vector<std::string>& tokens, const std::vector<std::string>& classes);

}  // namespace tg::explore
