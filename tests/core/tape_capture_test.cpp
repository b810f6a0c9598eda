// TapeCapture: the tensors of every entry recorded while it lives, for tapegrad explore.
#include "core/tape_capture.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("tape capture: each committed entry with its input and output tensors, in order") {
  Tensor x = tensor({1, 2, 3}).requires_grad_();
  Tensor c = tensor({10, 20, 30});  // a constant: its values are kept too
  TapeCapture capture;
  Tensor y = x * c;
  Tensor s = sum(y);
  const std::vector<CapturedEntry> entries = capture.entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].entry->op == "mul");
  REQUIRE(entries[0].inputs.size() == 2);
  CHECK(entries[0].inputs[0].id() == x.id());
  CHECK(entries[0].inputs[1].to_vector<float>() == std::vector<float>{10, 20, 30});
  REQUIRE(entries[0].outputs.size() == 1);
  CHECK(entries[0].outputs[0].id() == y.id());
  CHECK(entries[1].entry->op == "sum");
  CHECK(entries[1].outputs[0].item() == 140);
}

TEST_CASE("tape capture: nothing without grad, nothing after it ends, one at a time") {
  Tensor x = tensor({1, 2}).requires_grad_();
  {
    TapeCapture capture;
    {
      NoGradGuard no_grad;
      Tensor y = x * 2;
    }
    Tensor constant = tensor({1, 2}) * 2;  // no input requires grad: no entry
    CHECK(capture.entries().empty());
    CHECK_THROWS_WITH_AS(TapeCapture(), doctest::Contains("already active"), Error);
  }
  Tensor unseen = x * 3;  // after the capture
  TapeCapture fresh;
  CHECK(fresh.entries().empty());
  Tensor seen = x * 4;
  CHECK(fresh.entries().size() == 1);
}
