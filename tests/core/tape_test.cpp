// The tape: what is recorded, how it prints and exports, anomaly checks on forward values,
// and how long a graph lives.
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("tape: entries in execution order with index, op, inputs and outputs") {
  tape().clear();
  Tensor x = rand({2, 3}).requires_grad_();
  x.set_name("x");
  Tensor b = tensor({1, 2, 3});  // a constant
  Tensor y = x + b;
  Tensor s = sum(y);
  auto entries = tape().entries();
  REQUIRE(entries.size() == 2);
  const Entry &add_e = *entries[0], &sum_e = *entries[1];
  CHECK(add_e.tape_position == 0);
  CHECK(add_e.op == "add");
  REQUIRE(add_e.inputs.size() == 2);
  CHECK(add_e.inputs[0].record.id == x.id());
  CHECK(add_e.inputs[0].record.shape == Shape{2, 3});
  CHECK(add_e.inputs[0].requires_grad);
  CHECK(add_e.inputs[0].leaf == x.impl_ptr());
  CHECK(add_e.inputs[1].record.shape == Shape{3});
  CHECK_FALSE(add_e.inputs[1].requires_grad);
  REQUIRE(add_e.outputs.size() == 1);
  CHECK(add_e.outputs[0].id == y.id());
  CHECK(sum_e.tape_position == 1);
  CHECK(sum_e.inputs[0].record.id == y.id());
  CHECK(sum_e.inputs[0].producer == entries[0]);
  CHECK(sum_e.outputs[0].shape == Shape{});
  CHECK(y.producer() == entries[0]);
  CHECK(s.producer() == entries[1]);
  CHECK(graph_entries(s) == entries);

  CHECK(add_e.str() == "#0   add(x (2,3), (3,) const) -> (2,3)");
  CHECK(sum_e.str() == "#1   sum((2,3); dims=[0,1], keepdim=false) -> ()");
  CHECK(fmt::format("{}", sum_e) == sum_e.str());
  CHECK(fmt::format("{}", tape()) == add_e.str() + "\n" + sum_e.str() + "\n");

  tape().clear();  // forgets the listing, not the graph
  CHECK(tape().entries().empty());
  CHECK(fmt::format("{}", tape()) == "(empty tape)\n");
  CHECK((x + x).producer()->tape_position == 0);
  s.backward();
  require_values(x.grad(), {1, 1, 1, 1, 1, 1});
}

TEST_CASE("tape: to_dot draws tensors, ops and edges") {
  tape().clear();
  Tensor x = ones({2, 3}).requires_grad_();
  x.set_name("x");
  Tensor y = x + tensor({1, 2, 3});
  Tensor s = sum(y);
  std::string dot = tape().to_dot();
  CHECK(dot.starts_with("digraph tape {\n"));
  CHECK(dot.ends_with("}\n"));
  CHECK(dot.find("op0 [label=\"#0 add\"];") != std::string::npos);
  CHECK(dot.find("op1 [label=\"#1 sum\"];") != std::string::npos);
  CHECK(dot.find(fmt::format("t{} [shape=box, style=filled, label=\"x\\n(2,3)\"];", x.id())) != std::string::npos);
  CHECK(dot.find(fmt::format("t{} -> op0;", x.id())) != std::string::npos);
  CHECK(dot.find(fmt::format("op0 -> t{};", y.id())) != std::string::npos);
  CHECK(dot.find(fmt::format("t{} -> op1;", y.id())) != std::string::npos);
  CHECK(dot.find(fmt::format("op1 -> t{};", s.id())) != std::string::npos);
}

TEST_CASE("tape: nothing is recorded under NoGradGuard or without inputs requiring grad") {
  tape().clear();
  Tensor x = ones({2}).requires_grad_();
  {
    NoGradGuard no_grad;
    CHECK_FALSE(GradMode::enabled());
    {
      NoGradGuard nested;
    }
    CHECK_FALSE(GradMode::enabled());
    Tensor y = x + x;
    CHECK_FALSE(y.requires_grad());
    CHECK(y.is_leaf());
  }
  CHECK(GradMode::enabled());
  Tensor c = ones({2}) + ones({2});
  CHECK_FALSE(c.requires_grad());
  CHECK(tape().entries().empty());
}

TEST_CASE("anomaly mode: a forward NaN/Inf names the op and the tape index") {
  tape().clear();
  Tensor x = full({2}, 3e38).requires_grad_();
  CHECK(all_finite(x + x) == false);  // without anomaly mode: no error
  {
    AnomalyGuard anomaly;
    CHECK(AnomalyMode::enabled());
    CHECK_THROWS_WITH_AS(x + x, "add: anomaly: tape entry #1 'add' produced NaN or +Inf in output 0 (2,); "
                                "inputs: (2,) float32, (2,) float32", Error);
    CHECK(tape().entries().empty());  // the anomaly is thrown before anything is recorded
    Tensor big = full({4}, 2e38).requires_grad_();
    CHECK_THROWS_WITH_AS(sum(big), doctest::Contains("sum: anomaly: tape entry #1 'sum' produced NaN or +Inf"),
                         Error);
    // Without an entry, the message says so rather than naming an index nothing will get.
    CHECK_THROWS_WITH_AS(full({2}, 3e38) + full({2}, 3e38),
                         doctest::Contains("add: anomaly: an unrecorded call of 'add'"), Error);
    // -inf is how masks write "never attend here": allowed in forward outputs.
    Tensor scores = full({2}, 1.0).requires_grad_();
    CHECK_NOTHROW(scores + full({2}, -INFINITY));
  }
  CHECK_FALSE(AnomalyMode::enabled());
}

TEST_CASE("memory: a graph lives exactly as long as the tensors computed from it") {
  tape().clear();
  Tensor x = ones({2}, kF64).requires_grad_();
  std::weak_ptr<Entry> outer, inner, saves_output;
  {
    Tensor s = sum(x + x);
    outer = s.producer();
    inner = s.producer()->inputs[0].producer;
    CHECK_FALSE(inner.expired());
    CHECK(tape().entries().size() == 2);

    // An entry that saves its own output must not keep itself alive (saved tensors are detached).
    Tensor out = contiguous_copy(x);
    Recorder rec("saves_output_test", {x}, {out});
    rec.save("out", out);
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {ctx.grad()}; });
    saves_output = out.producer();
  }
  CHECK(outer.expired());
  CHECK(inner.expired());
  CHECK(saves_output.expired());
  CHECK(tape().entries().empty());  // the tape lists entries weakly
}
