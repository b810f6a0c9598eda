// tg::checkpoint (core/checkpoint.h): one tape entry, gradients equal to the plain function's,
// dropout's masks drawn again alike, unused params and outputs without gradient, double backward.
#include <algorithm>

#include "core/checkpoint.h"
#include "test_util.h"

using namespace tg;

namespace {

// y = tanh(x @ w) * b + x, and dropout(y) when p > 0: x (2,3), w (3,3), b (3,)
TensorList small_block(const TensorList& in, const Tensor& w, const Tensor& b, double p = 0) {
  Tensor y = tanh(matmul(in[0], w)) * b + in[0];
  return {p > 0 ? dropout(y, p, true) : y};
}

int count_ops(const std::string& op) {
  const auto entries = tape().entries();
  return static_cast<int>(std::count_if(entries.begin(), entries.end(), [&](const auto& e) { return e->op == op; }));
}

}  // namespace

TEST_CASE("checkpoint: gradcheck in float64 of a function with params, one tape entry, and double backward") {
  const auto fn = [](const std::vector<Tensor>& in) {
    const Tensor w = in[1], b = in[2];
    const auto block = [w, b](const TensorList& x) { return small_block(x, w, b); };
    return sum(checkpoint(block, {in[0]}, {w, b}, "block")[0]);
  };
  const std::vector<Tensor> inputs = {test::rand64({2, 3}, 1), test::rand64({3, 3}, 2), test::rand64({3}, 3)};
  const GradcheckResult r = gradcheck(fn, inputs);
  INFO(r.report);
  CHECK(r.ok);
  CHECK(r.ops == std::vector<std::string>{"checkpoint", "sum"});  // not the block's matmul, tanh, mul, add
  const GradcheckResult second = gradgradcheck(fn, inputs);
  INFO(second.report);
  CHECK(second.ok);

  tape().clear();
  const Tensor y = fn(inputs);  // holds the entries (the tape lists them weakly)
  const auto entries = tape().entries();
  REQUIRE(entries.size() == 2);
  CHECK(entries[0]->inputs.size() == 3);  // x, w, b
  CHECK(entries[0]->attributes == std::vector<std::pair<std::string, std::string>>{{"wraps", "block"}});
}

TEST_CASE("checkpoint: dropout draws the forward's mask again, and the generator ends where the plain run's does") {
  Tensor w = test::rand64({3, 3}, 4), b = test::rand64({3}, 5);
  struct Run {
    Tensor loss, dx, dw, db;
    Generator after;
  };
  const auto run = [&](bool checkpointed) {
    Tensor x = test::rand64({2, 3}, 6);
    w.zero_grad(), b.zero_grad();
    manual_seed(21);
    const auto block = [&](const TensorList& in) { return small_block(in, w, b, 0.5); };
    const Tensor y = checkpointed ? checkpoint(block, {x}, {w, b})[0] : block({x})[0];
    manual_seed(99);  // other draws between the forward and the backward
    const Tensor loss = sum(y * y);
    loss.backward();
    return Run{loss, x.grad(), w.grad(), b.grad(), default_generator()};
  };
  const Run plain = run(false), recomputed = run(true);
  CHECK(recomputed.loss.item() == doctest::Approx(plain.loss.item()).epsilon(1e-14));
  test::require_close(recomputed.dx, plain.dx, 1e-14);
  test::require_close(recomputed.dw, plain.dw, 1e-14);
  test::require_close(recomputed.db, plain.db, 1e-14);
  CHECK(recomputed.after.seed() == plain.after.seed());
  CHECK(recomputed.after.offset() == plain.after.offset());
}

TEST_CASE("checkpoint: an unused param gets no gradient, an output without history passes none on") {
  const Tensor w = test::rand64({3, 3}, 7), unused = test::rand64({4}, 8);
  Tensor x = test::rand64({2, 3}, 9);
  const auto fn = [&](const TensorList& in) -> TensorList { return {matmul(in[0], w), ones({2}, kF64)}; };
  const TensorList out = checkpoint(fn, {x}, {w, unused});
  REQUIRE(out.size() == 2);
  CHECK(out[0].requires_grad());
  (sum(out[0]) + sum(out[1])).backward();
  CHECK_FALSE(unused.grad().defined());
  test::require_close(w.grad(), matmul(transpose(x.detach(), 0, 1), ones({2, 3}, kF64)));
  test::require_close(x.grad(), matmul(ones({2, 3}, kF64), transpose(w.detach(), 0, 1)));

  // Nothing requires grad: no entry, the values all the same.
  tape().clear();
  const TensorList plain = checkpoint([](const TensorList& in) -> TensorList { return {in[0] * 2}; },
                                      {x.detach()}, {});
  CHECK(count_ops("checkpoint") == 0);
  test::require_close(plain[0], x.detach() * 2);
}

TEST_CASE("checkpoint: forward mode and an undefined output are refused by name") {
  const Tensor w = test::rand64({3, 3}, 10);
  const auto block = [&](const TensorList& in) -> TensorList { return {matmul(in[0], w)}; };
  CHECK_THROWS_WITH_AS(jvp([&](const TensorList& in) { return checkpoint(block, in, {}); },
                           {test::rand64({2, 3}, 11).detach()}, {test::rand64({2, 3}, 12).detach()}),
                       doctest::Contains("'checkpoint' has no forward-mode rule"), Error);
  CHECK_THROWS_WITH_AS(checkpoint([](const TensorList&) { return TensorList{Tensor()}; }, {test::rand64({2}, 13)}, {},
                                  "layers.3"),
                       doctest::Contains("checkpoint: output 0 of fn (layers.3) is undefined"), Error);
}

TEST_CASE("checkpoint: on the GPU its gradients match the CPU's") {
  if (!test::gpu_available_or_skip()) return;
  const auto fn = [](const std::vector<Tensor>& in) {
    const Tensor w = in[1], b = in[2];
    return checkpoint([w, b](const TensorList& x) { return small_block(x, w, b); }, {in[0]}, {w, b})[0];
  };
  test::require_cuda_matches_cpu(fn, {test::rand64({2, 3}, 14), test::rand64({3, 3}, 15), test::rand64({3}, 16)});
}
