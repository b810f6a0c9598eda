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
//   before returning, so the lesson may read gradients afterwards.
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace tg::lessons {

class LessonLog {
 public:
  virtual ~LessonLog() = default;
  virtual void say(std::string_view text) = 0;                      // a paragraph of prose
  virtual void show(std::string_view name, const Tensor& t) = 0;   // a tensor worth looking at
  virtual void fact(std::string_view statement, bool holds) = 0;   // a claim the lesson checked
  virtual void backward_from(const Tensor& loss) = 0;              // the scalar to differentiate
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
// restores both modes afterwards (also when the lesson throws).
void run_lesson(const Lesson& lesson, LessonLog& log);

}  // namespace tg::lessons
