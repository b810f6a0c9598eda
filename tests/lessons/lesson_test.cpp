// Lessons: every lesson runs, states facts that hold, differentiates once; the terminal printer
// names each lesson's key steps.
#include <doctest/doctest.h>

#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "lessons/lesson.h"
#include "tapegrad.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {

// Records what a lesson says, shows and checks; backward runs at once.
struct RecordingLog : lessons::LessonLog {
  std::vector<std::string> paragraphs, shown;
  std::vector<std::pair<std::string, bool>> facts;
  int backward_calls = 0;
  void say(std::string_view text) override { paragraphs.emplace_back(text); }
  void show(std::string_view name, const Tensor& t) override {
    REQUIRE(t.defined());
    shown.emplace_back(name);
  }
  void fact(std::string_view statement, bool holds) override { facts.emplace_back(statement, holds); }
  void backward_from(const Tensor& loss) override {
    REQUIRE(loss.numel() == 1);
    ++backward_calls;
    loss.backward();
  }
};

}  // namespace

TEST_CASE("lessons: every lesson runs, states checked facts, and every fact holds") {
  REQUIRE(lessons::lessons().size() >= 6);
  for (const lessons::Lesson& lesson : lessons::lessons()) {
    CAPTURE(lesson.name);
    RecordingLog log;
    lessons::run_lesson(lesson, log);
    CHECK(log.paragraphs.size() >= 3);
    CHECK(log.backward_calls == 1);
    CHECK(log.facts.size() >= 2);
    for (const auto& fact : log.facts) {
      CAPTURE(fact.first);
      CHECK(fact.second);
    }
  }
}

TEST_CASE("lessons: find_lesson finds each by name and nothing else, run_lesson restores the modes") {
  for (const lessons::Lesson& lesson : lessons::lessons()) CHECK(lessons::find_lesson(lesson.name) == &lesson);
  CHECK(lessons::find_lesson("no_such_lesson") == nullptr);
  CHECK(lessons::lesson_names().starts_with("attention_head, multi_head"));
  RecordingLog log;
  {
    NoGradGuard off;
    lessons::run_lesson(*lessons::find_lesson("nan_hunt"), log);  // turns anomaly mode on and off inside
    CHECK_FALSE(GradMode::enabled());
  }
  CHECK_FALSE(AnomalyMode::enabled());
}

TEST_CASE("lessons: the cross-entropy lesson's gradient is softmax - q (the one-hot targets), as the lesson states") {
  RecordingLog log;
  lessons::run_lesson(*lessons::find_lesson("cross_entropy"), log);
  const std::vector<std::string> expected = {"the logits' gradient equals (softmax(logits) - q) / N to 1e-12",
                                             "it matches central finite differences (eps 1e-6) to 1e-8"};
  for (const std::string& statement : expected) {
    CAPTURE(statement);
    auto it = std::find_if(log.facts.begin(), log.facts.end(), [&](const auto& f) { return f.first == statement; });
    REQUIRE(it != log.facts.end());
    CHECK(it->second);
  }
}

TEST_CASE("cli: lesson lists the lessons, and prints each with its key steps") {
  const auto list = run_cli({"lesson"});
  REQUIRE(list.status == 0);
  for (const lessons::Lesson& lesson : lessons::lessons()) CHECK(list.out.find(lesson.name) != std::string::npos);

  const std::map<std::string, std::vector<std::string>> key_steps = {
      {"attention_head", {"embedding(tokens (4,) const, E (9,4); padding_idx=0) -> x", "matmul(x (4,4), Wq (4,4)) -> q",
                          "sqrt(d_k)", "masked_fill", "-inf", "softmax", "weights =",
                          "BACKWARD from loss", "dL/dweights (flows in)", "dL/dWq =",
                          "rule: dL/da = sum_to(dL/dout @ b^T, a.shape)", "out is used 2 times"}},
      {"multi_head", {"(B,NH,T,hs)", "cat(", "W_O", "[holds] the step-by-step output equals nn::MultiHeadAttention"}},
      {"encoder_layer", {"Post-LN", "Pre-LN", "layer_norm", "eval()", "[holds] in training mode two calls"}},
      {"cross_entropy", {"cross_entropy(", "log_softmax", "softmax(z_n) - q_n", "numeric gradient ="}},
      {"gradcheck", {"gradcheck of cube", "tape #", "cube(x", "[holds] the wrong rule fails gradcheck"}},
      {"nan_hunt", {"loss =", "anomaly: an unrecorded call of 'mul' produced NaN", "masked_fill", "dL/dscores ="}},
      {"forward_vs_reverse", {"J v =", "[holds] jvp's tangent is J v", "BACKWARD from u . y", "u^T J =",
                              "[holds] both describe one Jacobian"}},
      {"double_backward", {"tape #3   mul(", "sub(1 const", "-> dy/dx (4,)", "[holds] dy/dx requires grad",
                           "BACKWARD from penalty", "dy/dx is used 2 times", "[holds] d(penalty)/dx = -4 w^3"}},
  };
  for (const auto& [lesson_name, steps] : key_steps) {
    const std::string& name = lesson_name;  // CAPTURE cannot take a structured binding in clang 14
    CAPTURE(name);
    const auto r = run_cli({"lesson", name});
    REQUIRE(r.status == 0);
    CHECK(r.out.find("DOES NOT HOLD") == std::string::npos);
    for (const std::string& step : steps) {
      CAPTURE(step);
      CHECK(r.out.find(step) != std::string::npos);
    }
  }
}

TEST_CASE("cli: lesson writes every gradient as dL/dx and says once what that means") {
  // A printed gradient is "    NAME (flows in)", "    NAME (flows out...)" or a lesson's shown
  // "    dL/dWq =": every such NAME, and every rule, uses the one notation.
  const std::regex flowing(R"(^    (.*) \(flows (in|out)|^    (.*) \(their sum)"), old_rule(R"(\bgrad\b|(^|[ (])d[a-z]+ =)");
  for (const lessons::Lesson& lesson : lessons::lessons()) {
    const std::string name = lesson.name;
    CAPTURE(name);
    const auto r = run_cli({"lesson", name});
    REQUIRE(r.status == 0);
    if (r.out.find("BACKWARD from") != std::string::npos)
      CHECK(r.out.find("dL/dx: the gradient of L = ") != std::string::npos);
    std::istringstream lines(r.out);
    int gradients = 0;
    for (std::string line; std::getline(lines, line);) {
      CAPTURE(line);
      std::smatch m;
      if (std::regex_search(line, m, flowing)) {
        ++gradients;
        CHECK(std::string(m[1].matched ? m[1] : m[3]).rfind("dL/d", 0) == 0);
      }
      if (line.rfind("    rule: ", 0) == 0) CHECK_FALSE(std::regex_search(line.substr(10), old_rule));
    }
    if (r.out.find("BACKWARD from loss") != std::string::npos) CHECK(gradients > 0);
  }
}

}  // namespace tg::test
