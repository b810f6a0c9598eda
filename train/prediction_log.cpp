#include "train/prediction_log.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "data/example.h"

namespace tg::train {

PredictionLog::PredictionLog(const std::string& path, const data::Vocab& input_vocab, const data::Vocab& output_vocab,
                             bool numbered_by_line, std::vector<int64_t> unscored_classes)
    : file_("eval", path),
      input_vocab_(input_vocab),
      output_vocab_(output_vocab),
      numbered_by_line_(numbered_by_line),
      unscored_classes_(std::move(unscored_classes)) {}

void PredictionLog::add(const data::Batch& b, const Tensor& predictions) {
  using nlohmann::json;
  const std::vector<int64_t> in = b.inputs.to_vector<int64_t>(), target = b.targets.to_vector<int64_t>(),
                             predicted = predictions.to_vector<int64_t>();
  const auto T = static_cast<size_t>(b.inputs.size(1));
  for (size_t row = 0; row < b.lengths.size(); ++row, ++next_) {
    json inputs = json::array(), targets = json::array(), answers = json::array();
    bool correct = true;
    for (size_t t = row * T; t < row * T + static_cast<size_t>(b.lengths[row]); ++t) {
      inputs.push_back(input_vocab_.token(in[t]));
      const bool asked = target[t] != data::kIgnoreIndex;
      targets.push_back(asked ? json(output_vocab_.token(target[t])) : json());
      answers.push_back(asked ? json(output_vocab_.token(predicted[t])) : json());
      const bool scored = asked && std::find(unscored_classes_.begin(), unscored_classes_.end(), target[t]) ==
                                       unscored_classes_.end();
      correct = correct && (!scored || predicted[t] == target[t]);
    }
    nlohmann::ordered_json j;
    if (numbered_by_line_) j["line"] = next_ + 1;
    else j["index"] = next_;
    j["input"] = inputs, j["target"] = targets, j["predicted"] = answers, j["correct"] = correct;
    file_.stream() << j.dump() << '\n';
  }
}

}  // namespace tg::train
