// The live lab's entry points (lab/page/lab.js calls them through Emscripten's ccall). Each takes
// and returns JSON text; the returned text stays valid until the next call. Any exception, a
// tg::Error first of all, comes back as {"error": its message}, so the page shows it and keeps
// working.
//
//   tapegrad_lab_lessons()  -> [{"name", "title", "summary"}]                       (teaching order)
//   tapegrad_lab_run(R)     R: {"lesson": name, "edits": [{"name", "index" (none for a setting), "value"}]}
//                           -> explore::record_lesson's recording (explore/lesson_log.h): the
//                              lesson with those edits, its "inputs" and "settings", without DOT
//   A value is a number, or text the library reads ("-inf", "nan", "0.5").
//   tapegrad_lab_train(R)   the page's training (lab/lab_training.h), R: {"action": one of
//                             "start" (with "flags": tapegrad train's, as an object) -> describe()
//                             "updates" (with "count") -> their metrics, as metrics.jsonl's records
//                             "keep" -> {}
//                             "snapshot" (with "step", "gradient": a parameter's name or "")
//                             "record" (with "step"), "evaluate" -> what LabTraining's of that name gives}
#include <emscripten/emscripten.h>

#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "explore/lesson_log.h"
#include "lab/lab_training.h"
#include "lessons/lesson.h"

namespace {

std::string reply;  // what the last call returned
std::unique_ptr<tg::lab::LabTraining> training;  // the page's, once started

const char* answer(const nlohmann::json& value) {
  reply = value.dump();
  return reply.c_str();
}

nlohmann::json lesson_list() {
  nlohmann::json list = nlohmann::json::array();
  for (const tg::lessons::Lesson& lesson : tg::lessons::lessons())
    list.push_back({{"name", lesson.name}, {"title", lesson.title}, {"summary", lesson.summary}});
  return list;
}

// A number from JSON, or text the library reads: JSON has no -inf, inf or nan.
double edit_value(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  return tg::lessons::parse_lesson_value(value.get<std::string>());
}

nlohmann::json run(const nlohmann::json& request) {
  const std::string name = request.at("lesson").get<std::string>();
  const tg::lessons::Lesson* lesson = tg::lessons::find_lesson(name);
  if (!lesson)
    throw tg::Error("lab", "there is no lesson named '" + name + "': the lessons are " + tg::lessons::lesson_names());
  std::vector<tg::lessons::LessonEdit> edits;
  for (const nlohmann::json& edit : request.value("edits", nlohmann::json::array())) {
    std::optional<int64_t> index;
    if (edit.contains("index")) index = edit.at("index").get<int64_t>();
    edits.push_back({edit.at("name").get<std::string>(), index, edit_value(edit.at("value"))});
  }
  return tg::explore::record_lesson(*lesson, std::move(edits), tg::explore::Graphs::kNone);  // the page lays it out
}

nlohmann::json train(const nlohmann::json& request) {
  const std::string action = request.at("action").get<std::string>();
  if (action == "start") {
    training.reset();
    training = std::make_unique<tg::lab::LabTraining>(request.at("flags"));
    return training->describe();
  }
  if (!training) throw tg::Error("lab", "no training is started: start one first");
  if (action == "updates") return training->updates(request.at("count").get<int64_t>());
  if (action == "keep") {
    training->keep();
    return nlohmann::json::object();
  }
  if (action == "snapshot")
    return training->snapshot(request.at("step").get<int64_t>(), request.value("gradient", std::string()));
  if (action == "record") return training->record(request.at("step").get<int64_t>());
  if (action == "evaluate") return training->evaluate();
  throw tg::Error("lab", "train: no action '" + action + "' (start, updates, keep, snapshot, record, evaluate)");
}

template <class Call>
const char* guarded(Call call) {
  try {
    return answer(call());
  } catch (const std::exception& e) {
    return answer({{"error", e.what()}});
  }
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* tapegrad_lab_lessons() { return guarded(lesson_list); }

EMSCRIPTEN_KEEPALIVE const char* tapegrad_lab_run(const char* request) {
  return guarded([&] { return run(nlohmann::json::parse(request)); });
}

EMSCRIPTEN_KEEPALIVE const char* tapegrad_lab_train(const char* request) {
  return guarded([&] { return train(nlohmann::json::parse(request)); });
}

}  // extern "C"
