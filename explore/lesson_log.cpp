#include "explore/lesson_log.h"

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
  recording_ = record(capture_, loss);
  recording_["attention"] = attention_maps(softmax_outputs(capture_), {});
}

nlohmann::json LessonPageLog::recording() const {
  if (recording_.is_null()) throw Error("explore", "the lesson differentiated no loss, so there is no tape to show");
  nlohmann::json page = recording_;
  page["lesson"] = steps_;
  return page;
}

nlohmann::json record_lesson(const lessons::Lesson& lesson, std::vector<lessons::LessonEdit> edits) {
  TapeCapture capture;
  LessonPageLog log(capture);
  lessons::run_lesson(lesson, log, std::move(edits));
  nlohmann::json recording = log.recording();
  recording["inputs"] = nlohmann::json::array();
  for (const lessons::LessonLog::Input& input : log.inputs())
    recording["inputs"].push_back({{"name", input.name}, {"value", summarize(input.tensor)}});
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
