#pragma once
// The explorer's LessonLog (lessons/lesson.h): keeps the lesson's prose, the tensors it shows
// and the facts it checks, in order, and records the computation of the first loss it is asked
// to differentiate (explore/recording.h), its attention maps labelled with its tokens when it has
// some. A later loss is differentiated without recording.
//
//   TapeCapture capture;
//   LessonPageLog log(capture);
//   lessons::run_lesson(lesson, log);
//   nlohmann::json rec = log.recording();   // with "lesson": [{"say"} | {"show", "value"} |
//                                           //                {"fact", "holds"} | {"backward"}]
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/tape_capture.h"
#include "explore/recording.h"
#include "lessons/lesson.h"

namespace tg::explore {

class LessonPageLog : public lessons::LessonLog {
 public:
  explicit LessonPageLog(const TapeCapture& capture, Graphs graphs = Graphs::kDot)
      : capture_(capture), graphs_(graphs) {}
  void say(std::string_view text) override;
  void show(std::string_view name, const Tensor& t) override;
  void fact(std::string_view statement, bool holds) override;
  void backward_from(const Tensor& loss) override;

  // The recording with the lesson's steps; a tg::Error when the lesson differentiated nothing.
  nlohmann::json recording() const;

 private:
  std::vector<std::string> token_texts() const;
  const TapeCapture& capture_;
  Graphs graphs_;
  nlohmann::json steps_ = nlohmann::json::array();
  nlohmann::json recording_;
};

// The recording of `lesson` run with `edits` (lessons::run_lesson), with "inputs": [{"name",
// "value", and for tokens "vocabulary": [id -> text]}], the tensors it lets a student edit, in
// the order it makes them (a lesson may make one that its recorded loss never reads, as
// gradcheck's inputs), and "settings": [{"name", "meaning", "value", "allowed": [values]}], its
// choices, each value as text ("-inf", "1e+09"), and "axis_labels": {tensor name: {"rows":
// [text], "cols": [text]}} (LessonLog::label_axes). `graphs`: as record()'s.
nlohmann::json record_lesson(const lessons::Lesson& lesson, std::vector<lessons::LessonEdit> edits,
                             Graphs graphs = Graphs::kDot);

}  // namespace tg::explore
