// A readable tape: scalar constants print their value, names set after an op label its output,
// and a tensor used several times shows each contribution to its gradient while stepping.
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("readable tape: a scalar constant prints its value, a one-element tensor too") {
  tape().clear();
  Tensor x = rand({2, 3}).requires_grad_();
  x.set_name("x");
  Tensor y = mul(x, 0.125);
  Tensor z = add(y, tensor({-2.5}, {1, 1}));
  auto entries = tape().entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0]->str() == "#0   mul(x (2,3), 0.125 const) -> (2,3)  saved: b");
  CHECK(entries[1]->str() == "#1   add((2,3), -2.5 const) -> (2,3)");
  CHECK(entries[1]->inputs[1].scalar.defined());
  CHECK_FALSE(entries[1]->inputs[0].scalar.defined());  // requires grad: shown by shape
  CHECK(tape().to_dot().find("label=\"0.125\"") != std::string::npos);
}

TEST_CASE("readable tape: set_name after the op names its output on the entry and as the next op's input") {
  tape().clear();
  Tensor x = rand({2, 2}).requires_grad_();
  Tensor q = matmul(x, x);
  Tensor s = sum(q);
  q.set_name("q");  // after both ops were recorded
  s.set_name("loss");
  auto entries = tape().entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0]->outputs[0].name == "q");
  CHECK(entries[0]->str() == "#0   matmul((2,2), (2,2)) -> q (2,2)  saved: a, b");
  CHECK(entries[1]->inputs[0].name() == "q");
  CHECK(entries[1]->str().find("sum(q (2,2)") != std::string::npos);
  CHECK(entries[1]->str().find("-> loss ()") != std::string::npos);
  x.set_name("x");  // a leaf named after use: read from the leaf itself
  CHECK(entries[0]->str() == "#0   matmul(x (2,2), x (2,2)) -> q (2,2)  saved: a, b");
  const std::string dot = tape().to_dot();
  CHECK(dot.find("q\\n(2,2)") != std::string::npos);
  CHECK(dot.find("x\\n(2,2)") != std::string::npos);
}

TEST_CASE("BackwardStepper: a tensor used twice shows both contributions and their sum") {
  tape().clear();
  Tensor x = tensor({1, 2, 3}).requires_grad_();
  Tensor out = mul(x, 3.0);  // out = 3x
  Tensor sq = mul(out, out);  // out used twice by one entry
  Tensor both = add(sq, out);  // and once more: three uses in all
  Tensor loss = sum(both);
  BackwardStepper step(loss);
  CHECK(step.contributions(loss.id()).size() == 1);
  CHECK(step.contributions(loss.id())[0].entry == -1);  // the seed
  step.step();  // sum
  step.step();  // add: dsq and one contribution to dout
  const Entry& mul_sq = step.step();  // mul(out, out): two more
  REQUIRE(mul_sq.op == "mul");
  const auto& parts = step.contributions(out.id());
  REQUIRE(parts.size() == 3);
  CHECK(parts[0].entry == both.producer()->tape_position);  // add's backward ran first
  CHECK(parts[1].entry == mul_sq.tape_position);
  CHECK(parts[1].input == 0);
  CHECK(parts[2].entry == mul_sq.tape_position);
  CHECK(parts[2].input == 1);
  require_values(parts[1].grad, {3, 6, 9});  // d(out^2)/d(out) from each input: out
  const Entry& mul_x = step.step();  // out = 3x: its gradient flows in summed
  CHECK(mul_x.outputs[0].id == out.id());
  require_values(step.last_output_grads()[0], {1 + 2 * 3, 1 + 2 * 6, 1 + 2 * 9});
  require_values(parts[0].grad, {1, 1, 1});  // the contributions keep their values
  require_values(x.grad(), {21, 39, 57});
  CHECK(step.contributions(x.id()).size() == 1);
  CHECK(step.contributions(12345678).empty());
}

TEST_CASE("BackwardStepper: run() keeps no contributions") {
  Tensor x = tensor({1, 2}).requires_grad_();
  Tensor y = mul(x, x);
  BackwardStepper step(sum(y));
  step.run();
  CHECK(step.contributions(y.id()).empty());
  CHECK(step.contributions(x.id()).empty());
  require_values(x.grad(), {2, 4});
}
