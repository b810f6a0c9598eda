#include "explore/lesson_log.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "explore/attention_maps.h"
#include "explore/recording.h"
#include "explore/tensor_summary.h"

namespace tg::explore {

void LessonPageLog::say(std::string_view text) { steps_.push_back({{"say", std::string(text)}}); }

void LessonPageLog::show(std::string_view name, const Tensor& t) {
  steps_.push_back({{"show", std::string(name)}, {"value", summarize(t)}});
}

void LessonPageLog::fact(std::string_view statement, bool holds) {
  steps_.push_back({{"fact", std::string(statement)}, {"holds", holds}});
}

void LessonPageLog::backward_from(const Tensor& loss) {
  steps_.push_back({{"backward", loss.name().empty() ? std::string("the loss") : loss.name()}});
  if (!recording_.is_null()) {
    loss.backward();
    return;
  }
  const LabelledWeights weights = softmax_outputs(capture_);  // before backward frees the tape
  recording_ = record(capture_, loss, graphs_);
  recording_["attention"] = attention_maps(weights, token_texts());
}

// The texts of the lesson's tokens (its first token input's), which label its attention maps.
std::vector<std::string> LessonPageLog::token_texts() const {
  const auto has_vocabulary = [](const Input& input) { return !input.vocabulary.empty(); };
  const auto tokens = std::find_if(inputs().begin(), inputs().end(), has_vocabulary);
  std::vector<std::string> texts;
  if (tokens != inputs().end())
    for (const int64_t id : tokens->tensor.to_vector<int64_t>()) texts.push_back(tokens->vocabulary.at(size_t(id)));
  return texts;
}

nlohmann::json LessonPageLog::recording() const {
  if (recording_.is_null()) throw Error("explore", "the lesson differentiated no loss, so there is no tape to show");
  nlohmann::json page = recording_;
  page["lesson"] = steps_;
  return page;
}

nlohmann::json record_lesson(const lessons::Lesson& lesson, std::vector<lessons::LessonEdit> edits, Graphs graphs) {
  TapeCapture capture;
  LessonPageLog log(capture, graphs);
  lessons::run_lesson(lesson, log, std::move(edits));
  nlohmann::json recording = log.recording();
  recording["inputs"] = nlohmann::json::array();
  for (const lessons::LessonLog::Input& input : log.inputs()) {
    recording["inputs"].push_back({{"name", input.name}, {"value", summarize(input.tensor)}});
    if (!input.vocabulary.empty()) recording["inputs"].back()["vocabulary"] = input.vocabulary;
  }
  recording["axis_labels"] = nlohmann::json::object();
  for (const lessons::LessonLog::AxisLabels& labels : log.axis_labels())
    recording["axis_labels"][labels.name] = {{"rows", labels.rows}, {"cols", labels.cols}};
  const auto text = [](double v) { return fmt::format("{}", v); };  // "-inf", "1e+09": JSON has no infinity
  recording["settings"] = nlohmann::json::array();
  for (const lessons::LessonSetting& setting : log.settings()) {
    std::vector<std::string> allowed;
    for (double v : setting.allowed) allowed.push_back(text(v));
    recording["settings"].push_back(
        {{"name", setting.name}, {"meaning", setting.meaning}, {"value", text(setting.value)}, {"allowed", allowed}});
  }
  return recording;
}

}  // namespace tg::explore
