// gradcheck itself: it must pass correct rules, catch wrong ones, and refuse inputs it cannot check.
#include "core/square_test_op.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("gradcheck: passes a correct op and reports the ops on the tape") {
  auto fn = [](const std::vector<Tensor>& in) { return sum(reshape(in[0] + in[1], {-1})); };
  GradcheckResult r = gradcheck(fn, {rand64({2, 3}, 1), rand64({3}, 2)});
  INFO(r.report);
  CHECK(r.ok);
  CHECK(static_cast<bool>(r));
  CHECK(r.checked == 9);
  CHECK(r.error < 1e-8);
  CHECK(r.ops == std::vector<std::string>{"add", "reshape", "sum"});
  CHECK(r.report.starts_with("gradcheck passed: 9 elements; worst: input "));

  GradcheckResult sq = gradcheck([](const std::vector<Tensor>& in) { return square_test_op(in[0]); },
                                 {rand64({2, 2}, 3)});
  INFO(sq.report);
  CHECK(sq.ok);
  CHECK(sq.ops == std::vector<std::string>{"square_test_op"});
}

TEST_CASE("gradcheck: fails a wrong backward rule, naming the input and index") {
  // dx = 2 * (2 x grad): twice the true gradient.
  auto wrong = [](const std::vector<Tensor>& in) { return in[0] + square_test_op(in[1], 2); };
  Tensor a = rand64({2, 3}, 4), b = rand64({2, 3}, 5, 0.5, 1);  // |b| >= 0.5: the error is never tiny
  GradcheckResult r = gradcheck(wrong, {a, b});
  INFO(r.report);
  CHECK_FALSE(r.ok);
  CHECK(r.input == 1);  // input 0's gradient (through add) is right
  REQUIRE(r.index.size() == 2);
  CHECK(r.index[0] < 2);
  CHECK(r.index[1] < 3);
  CHECK(r.analytic == doctest::Approx(2 * r.numeric).epsilon(1e-5));
  CHECK(r.error == doctest::Approx(std::abs(r.numeric)).epsilon(1e-5));
  CHECK(r.report.starts_with("gradcheck FAILED: 12 elements; worst: input 1 at ("));
  CHECK(r.report.find(fmt::format("input 1 at ({},{})", r.index[0], r.index[1])) != std::string::npos);
}

TEST_CASE("gradcheck: float32 inputs get the float32 tolerances, other dtypes, mixes and expanded inputs are refused") {
  auto fn = [](const std::vector<Tensor>& in) { return in[0] + square_test_op(in[0]); };
  Tensor f32 = rand({2, 2}).requires_grad_();
  GradcheckResult r = gradcheck(fn, {f32});
  INFO(r.report);
  CHECK(r.ok);
  CHECK(r.report.find("(atol 0.01, rtol 0.01)") != std::string::npos);
  auto wrong = [](const std::vector<Tensor>& in) { return square_test_op(in[0], 2); };
  Generator gen(3);
  CHECK_FALSE(gradcheck(wrong, {rand({2, 2}, kF32, kCPU, gen, 0.5, 1).requires_grad_()}).ok);
  CHECK(default_tolerances(kF64).atol == 1e-6);
  CHECK_THROWS_WITH_AS(gradcheck(fn, {f32, rand64({2}, 1)}),
                       doctest::Contains("gradcheck: input 1 (2,) float64 is not float32 like the inputs before it"),
                       Error);
  Tensor expanded = make_view(rand64({1, 3}, 1), {2, 3}, {0, 1}, 0).requires_grad_();
  CHECK_THROWS_WITH_AS(gradcheck(fn, {expanded}),
                       doctest::Contains("gradcheck: input 0 (2,3) float64 is an expanded view (stride 0 in dim 0)"),
                       Error);
  // Expanded inputs that need no gradient are fine: they are held constant.
  Tensor c = make_view(tensor({1, 2, 3}, {1, 3}), {2, 3}, {0, 1}, 0);
  auto mixed = [](const std::vector<Tensor>& in) { return in[0] + to_dtype_copy(in[1], kF64); };
  CHECK(gradcheck(mixed, {rand64({2, 3}, 2), c}).ok);
}

TEST_CASE("gradcheck: skips inputs that do not require grad") {
  auto fn = [](const std::vector<Tensor>& in) { return square_test_op(in[0]) + in[1]; };
  Tensor constant = rand({3}, kF64);
  GradcheckResult r = gradcheck(fn, {rand64({3}, 1), constant});
  INFO(r.report);
  CHECK(r.ok);
  CHECK(r.checked == 3);
  CHECK(r.input == 0);
  CHECK_FALSE(constant.grad().defined());

  GradcheckResult none = gradcheck(fn, {rand({3}, kF64), constant});
  CHECK_FALSE(none.ok);  // nothing checked is not a pass
  CHECK(none.checked == 0);
  CHECK(none.report == "gradcheck: no input requires grad; nothing checked");
}

TEST_CASE("gradcheck: checks non-contiguous inputs as non-contiguous, leaving them untouched") {
  Tensor x = noncontig64({3, 2}, 7);
  const std::vector<double> before = x.to_vector<double>();
  bool saw_noncontiguous = false;
  auto fn = [&](const std::vector<Tensor>& in) {
    saw_noncontiguous = saw_noncontiguous || !in[0].is_contiguous();
    return square_test_op(in[0]);
  };
  GradcheckResult r = gradcheck(fn, {x});
  INFO(r.report);
  CHECK(r.ok);
  CHECK(r.checked == 6);
  CHECK(saw_noncontiguous);
  CHECK(x.to_vector<double>() == before);
  CHECK_FALSE(x.grad().defined());
  // The wrong rule is caught through the strided layout as well.
  CHECK_FALSE(gradcheck([](const std::vector<Tensor>& in) { return square_test_op(in[0], 2); }, {x}).ok);
}
