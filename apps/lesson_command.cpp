// tapegrad lesson [NAME]: without a name, lists the lessons (lessons/lesson.h); with one, prints
// it in the terminal: each paragraph of prose, the tape entries recorded since the previous
// step, the tensors the lesson shows with their values, the facts it checked, and backward one
// entry at a time with each op's backward rule and the gradients flowing in and out (as trace
// does). A fact that does not hold sets exit 1, unless --set changed the lesson (then it is said).
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/backward_printout.h"
#include "apps/commands.h"
#include "core/error.h"
#include "core/format.h"
#include "core/tape.h"
#include "lessons/lesson.h"

namespace tg::cli {

namespace {

constexpr size_t kWidth = 100;  // prose is wrapped to this many columns

std::string wrapped(std::string_view text, size_t width) {
  std::string out, line;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) out += line + "\n", line.clear();
    line += (line.empty() ? "" : " ") + std::string(word);
    start = end + 1;
  }
  return out + line;
}

class TerminalLog : public lessons::LessonLog {
 public:
  explicit TerminalLog(std::FILE* out) : out_(out) {}
  int failed_facts() const { return failed_facts_; }

  void say(std::string_view text) override {
    print_new_entries();
    fmt::print(out_, "\n{}\n", wrapped(text, kWidth));
  }
  void show(std::string_view name, const Tensor& t) override {
    print_new_entries();
    names_[t.id()] = std::string(name);
    print_value(out_, std::string(name), t);
  }
  void fact(std::string_view statement, bool holds) override {
    print_new_entries();
    failed_facts_ += holds ? 0 : 1;
    fmt::print(out_, "  [{}] {}\n", holds ? "holds" : "DOES NOT HOLD", statement);
  }
  void backward_from(const Tensor& loss) override {
    print_new_entries();
    fmt::print(out_, "\nBACKWARD from {}: the entries in reverse order, each turning the gradient of its output "
                     "into the gradients of its inputs\n", label(loss.id(), loss.name()));
    print_backward(out_, loss, [this](int64_t id, const std::string& recorded) { return label(id, recorded); });
    fmt::print(out_, "\n");
  }

 private:
  // The entries recorded since the last step, as the tape prints them.
  void print_new_entries() {
    for (const auto& e : tape().entries()) {
      if (e->creation_order < next_creation_order_) continue;
      fmt::print(out_, "  tape {}\n", *e);
      next_creation_order_ = e->creation_order + 1;
    }
  }
  std::string label(int64_t id, const std::string& recorded) const {
    auto it = names_.find(id);
    if (it != names_.end()) return it->second;
    return recorded.empty() ? fmt::format("tensor {}", id) : recorded;
  }

  std::FILE* out_;
  uint64_t next_creation_order_ = 0;
  std::map<int64_t, std::string> names_;  // tensor id -> the name the lesson showed it under
  int failed_facts_ = 0;
};

void list_lessons(std::FILE* out) {
  fmt::print(out, "Lessons (run one with: tapegrad lesson NAME):\n");
  for (const lessons::Lesson& lesson : lessons::lessons())
    fmt::print(out, "  {:<16} {}: {}\n", lesson.name, lesson.title, lesson.summary);
}

void run_lesson_command(const std::string& name, const std::vector<std::string>& set, Io& io) {
  const lessons::Lesson* lesson = name.empty() ? nullptr : lessons::find_lesson(name);
  if (!name.empty() && !lesson)
    throw CLI::ValidationError("name", fmt::format("no lesson named \"{}\"; the lessons are: {}", name,
                                                   lessons::lesson_names()));
  if (!set.empty() && !lesson) throw CLI::ValidationError("--set", "changes a lesson's inputs: name the lesson too");
  if (io.parse_only) return;
  if (!lesson) return list_lessons(io.out);
  io.activity = "running the lesson " + name;
  fmt::print(io.out, "{}\n{}\n", lesson->title, std::string(lesson->title.size(), '='));
  TerminalLog log(io.out);
  std::vector<lessons::LessonEdit> edits;
  for (const std::string& edit : set) edits.push_back(lessons::parse_lesson_edit(edit));
  lessons::run_lesson(*lesson, log, std::move(edits));
  if (log.failed_facts() > 0 && !set.empty()) {  // what a change is for: said, not an error
    fmt::print(io.out, "{} of the lesson's facts do not hold with these changes\n", log.failed_facts());
  } else if (log.failed_facts() > 0) {
    fmt::print(io.err, "tapegrad: lesson {}: {} of its facts do not hold\n", name, log.failed_facts());
    io.status = 1;
  }
}

}  // namespace

void add_lesson_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "lesson", "List the lessons, or print one step by step: prose, the tape with values, backward entry by entry");
  auto name = std::make_shared<std::string>();
  auto set = std::make_shared<std::vector<std::string>>();
  sub->add_option("name", *name, "the lesson to print (none: list them)");
  sub->add_option("--set", *set, "change one of its inputs or settings before it runs, TENSOR[INDEX]=VALUE or "
                                 "SETTING=VALUE (repeatable): --set x[3]=0.5 --set d_k=2")
      ->check(lesson_edit());
  sub->callback([name, set, io] { run_lesson_command(*name, *set, *io); });
}

}  // namespace tg::cli
