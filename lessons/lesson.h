#pragma once
// Lessons: small computations built step by step with tapegrad ops, with prose between the steps.
//
// A lesson is a named function that talks to a LessonLog. It never prints: the log decides how
// the steps are shown. Two logs exist: the terminal printer (`tapegrad lesson NAME`: prose, then
// the tape entries recorded since the last step with their values, then backward one entry at a
// time) and the explorer (`tapegrad explore --lesson NAME`: records everything for a page).
//
//   void run_softmax_lesson(LessonLog& log) {
//     log.say("Softmax turns scores into weights that sum to 1.");
//     Tensor s = tg::randn({3}, ...).requires_grad_().set_name("scores");
//     log.show("scores", s);
//     Tensor w = tg::softmax(s, -1).set_name("weights");
//     log.show("weights", w);                          // the tape now holds softmax's entry
//     log.fact("the weights sum to 1", std::abs(tg::sum(w).item() - 1) < 1e-6);
//     log.backward_from(tg::sum(tg::mul(w, w)));        // runs backward; .grad() is set after
//   }
//
// Rules every lesson keeps, so that every log can rely on them:
// - it starts from a clean tape (run_lesson clears it) and names what it shows (set_name);
// - it is deterministic: it seeds its own Generator;
// - each fact() it states is computed, not asserted by hand: the tests check that every fact
//   of every lesson holds;
// - backward_from() is called at most once per loss; the log runs the whole backward pass
//   before returning, so the lesson may read gradients afterwards;
// - every tensor a student may change (its inputs and parameters) is made through input() (or
//   tokens(), parameter()), which names it and applies the student's edits (`tapegrad explore
//   --lesson NAME --set x[3]=0.5`, the lab), and every choice a student may make (the scale on
//   or off, d_k, the mask's fill) through setting();
// - its final scalar is named "loss".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace tg::lessons {

struct Lesson;

// A student's change to a lesson: element `index` (row-major) of the input named `name` becomes
// `value` before anything reads it, or, without an index, the setting named `name` takes `value`.
struct LessonEdit {
  std::string name;
  std::optional<int64_t> index;
  double value = 0;
};

// A choice the lesson offers (LessonLog::setting): its value in this run and the values it takes.
struct LessonSetting {
  std::string name, meaning;
  double value = 0;
  std::vector<double> allowed;
};

// "x[3]=0.5" (also "-inf", "inf", "nan") -> {"x", 3, 0.5}; "d_k=2" -> {"d_k", none, 2}; a
// tg::Error quoting the text otherwise.
LessonEdit parse_lesson_edit(std::string_view text);
// "0.5", "-inf", "inf", "nan" -> the number; a tg::Error quoting the text otherwise.
double parse_lesson_value(std::string_view text);

class LessonLog {
 public:
  virtual ~LessonLog() = default;
  virtual void say(std::string_view text) = 0;                      // a paragraph of prose
  virtual void show(std::string_view name, const Tensor& t) = 0;   // a tensor worth looking at
  virtual void fact(std::string_view statement, bool holds) = 0;   // a claim the lesson checked
  virtual void backward_from(const Tensor& loss) = 0;              // the scalar to differentiate

  // One of the lesson's inputs or parameters: `t` named `name`, with the edits for that name
  // applied (a fresh leaf of the same shape, dtype and requires_grad when there are any); a
  // tg::Error naming the tensor and its size for an index out of range.
  Tensor input(std::string_view name, Tensor t);
  // The lesson's tokens, named `name`: `ids` (int64, (T,)) into `vocabulary`, with the edits for
  // that name applied; a tg::Error listing the vocabulary for an id outside it.
  Tensor tokens(std::string_view name, const std::vector<int64_t>& ids, std::vector<std::string> vocabulary);
  // A module's parameter a student may change, named `name`: the edits for that name are written
  // into it (the module keeps it), off the tape.
  void parameter(std::string_view name, Tensor p);
  struct Input {
    std::string name;
    Tensor tensor;
    std::vector<std::string> vocabulary;  // a token input's (tokens()): id -> its text; else empty
  };
  const std::vector<Input>& inputs() const { return inputs_; }  // in the order the lesson made them

  // Labels for the rows and the columns of the tensor named `name` wherever a page shows it (its
  // gradient's too): the tokens a row or column stands for, say. An empty list leaves that axis
  // numbered; so does a list whose length is not the axis's.
  void label_axes(std::string_view name, std::vector<std::string> rows, std::vector<std::string> cols = {});
  struct AxisLabels {
    std::string name;
    std::vector<std::string> rows, cols;
  };
  const std::vector<AxisLabels>& axis_labels() const { return axis_labels_; }

  // One of the lesson's choices: `value` unless an edit names it; a tg::Error listing `allowed`
  // when the edit's value is not one of them. `meaning` says what it changes, for a control's label.
  double setting(std::string_view name, double value, std::vector<double> allowed, std::string_view meaning);
  const std::vector<LessonSetting>& settings() const { return settings_; }  // in the order the lesson asked

 private:
  friend void run_lesson(const Lesson& lesson, LessonLog& log, std::vector<LessonEdit> edits);
  std::vector<double> edited_values(std::string_view name, const Tensor& t) const;  // empty: no edit names it
  std::vector<LessonEdit> edits_;
  std::vector<Input> inputs_;
  std::vector<LessonSetting> settings_;
  std::vector<AxisLabels> axis_labels_;
};

struct Lesson {
  std::string name;     // what `tapegrad lesson NAME` takes: "attention_head"
  std::string title;    // "One attention head"
  std::string summary;  // one line for the list
  void (*run)(LessonLog&);
};

const std::vector<Lesson>& lessons();              // in teaching order
const Lesson* find_lesson(std::string_view name);  // null when there is none of that name
std::string lesson_names();                        // "attention_head, multi_head, ..." for messages

// Clears this thread's tape, runs the lesson with recording on and anomaly mode off, and
// restores both modes afterwards (also when the lesson throws). `edits` change its inputs and
// settings; one naming neither is a tg::Error listing them.
void run_lesson(const Lesson& lesson, LessonLog& log, std::vector<LessonEdit> edits = {});

}  // namespace tg::lessons
