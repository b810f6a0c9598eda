// The contributions to a tensor's gradient: only the entries backward runs count (issue 29), in
// the explorer's recording and in the terminal alike.
#include <string>
#include <vector>

#include "core/tape_capture.h"
#include "explore/gradient_readers.h"
#include "explore/lesson_log.h"
#include "lessons/lesson.h"
#include "tapegrad.h"
#include "test_util.h"
#include "train/train_test_util.h"

using namespace tg;
using nlohmann::json;

namespace {
const std::string kNanHuntText = "1 of the 2 contributions that add up to the gradient, from entries #4, #6";

// Every non-null "contributions" text of the recording's backward steps.
std::vector<std::string> contribution_texts(const json& rec) {
  std::vector<std::string> texts;
  for (const json& step : rec["backward"])
    for (const json& text : step["contributions"])
      if (!text.is_null()) texts.push_back(text.get<std::string>());
  return texts;
}
}  // namespace

TEST_CASE("gradient readers: a reader off the backward path is not counted, every reader on it is") {
  tape().clear();
  Tensor x = tensor({1, 2, 3}).requires_grad_();
  Tensor dropped = mul(x, 5.0);                 // #0: read, never differentiated
  Tensor loss = sum(add(mul(x, x), x));         // #1 mul(x, x), #2 add(.., x), #3 sum
  const explore::GradientReaders readers = explore::gradient_readers(loss);
  CHECK(readers.at(x.id()) == std::vector<int64_t>{1, 1, 2});
  CHECK(explore::contribution_text(readers, x.id()) ==
        "1 of the 3 contributions that add up to the gradient, from entries #1, #1, #2");
  CHECK(explore::contribution_text(readers, loss.id()).empty());  // read by no entry
  CHECK(explore::gradient_readers(x).empty());                     // a leaf has no graph
  (void)dropped;
}

TEST_CASE("gradient readers: the NaN lesson's page names only #4 and #6 for scores") {
  TapeCapture capture;
  explore::LessonPageLog log(capture);
  lessons::run_lesson(*lessons::find_lesson("nan_hunt"), log);
  const std::vector<std::string> texts = contribution_texts(log.recording());
  CHECK(texts == std::vector<std::string>{kNanHuntText, kNanHuntText});  // #6 and #4 each say which of two
}

TEST_CASE("gradient readers: the NaN lesson's terminal says what its page says") {
  const auto r = test::run_cli({"lesson", "nan_hunt"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("dL/dscores (flows out: " + kNanHuntText + ")") != std::string::npos);
  CHECK(r.out.find("#0, ") == std::string::npos);
}
