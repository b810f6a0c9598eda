// Backward through the tape: all at once or stepped, seeds, accumulation, retain_graph,
// anomaly checks on gradients, saved-tensor checks, and the layout of leaf gradients.
#include "core/square_test_op.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("backward: seeds, grad_output and errors") {
  Tensor x = tensor({1, 2, 3}, {3}, kF64).requires_grad_();
  sum(x).backward();  // a 0-d result: the seed defaults to 1
  require_values(x.grad(), {1, 1, 1});
  x.zero_grad();
  CHECK_FALSE(x.grad().defined());
  reshape(sum(x), {1, 1}).backward();  // any one-element result
  require_values(x.grad(), {1, 1, 1});

  x.zero_grad();
  CHECK_THROWS_WITH_AS((x + x).backward(), "backward: grad_output can be omitted only for a one-element "
                                           "tensor, but the tensor has shape (3,)", Error);
  (x + x).backward(tensor({1, 2, 3}, {3}, kF64));
  require_values(x.grad(), {2, 4, 6});
  CHECK_THROWS_WITH_AS((x + x).backward(ones({2}, kF64)), doctest::Contains("does not match"), Error);
  CHECK_THROWS_WITH_AS((x + x).backward(ones({3}, kF32)), doctest::Contains("does not match"), Error);
  CHECK_THROWS_WITH_AS(ones({1}).backward(), doctest::Contains("does not require grad"), Error);

  Tensor leaf = zeros({2}, kF64).requires_grad_();
  leaf.backward(tensor({3, 4}, {2}, kF64));  // a leaf root: the seed is its gradient
  require_values(leaf.grad(), {3, 4});
}

TEST_CASE("backward: leaf gradients accumulate, a tensor used twice gets both") {
  Tensor x = tensor({1, 2}, {2}, kF64).requires_grad_();
  sum(x + x).backward();
  require_values(x.grad(), {2, 2});
  sum(x + x).backward();
  require_values(x.grad(), {4, 4});
  x.zero_grad();
  sum(x + x).backward();
  require_values(x.grad(), {2, 2});
}

TEST_CASE("backward: a diamond graph adds both paths") {
  // b[i,j] = x[i] + (x[j] + 1), s = sum(b): ds/dx[k] = 3 (as i) + 3 (as j) = 6.
  Tensor x = tensor({1, 2, 3}, {3}, kF64).requires_grad_();
  Tensor a = x + 1.0;
  Tensor b = reshape(x, {3, 1}) + a;
  require_values(b, {3, 4, 5, 4, 5, 6, 5, 6, 7});
  sum(b).backward();
  require_values(x.grad(), {6, 6, 6});
}

TEST_CASE("backward: retain_graph") {
  Tensor x = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor s = sum(x + x);
  s.backward();
  CHECK(s.producer()->released);
  CHECK(s.producer()->str().ends_with("[released]"));
  CHECK_THROWS_WITH_AS(s.backward(), doctest::Contains("pass retain_graph=true"), Error);

  Tensor y = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor t = sum(y + y);
  t.backward({}, true);
  t.backward();
  require_values(y.grad(), {4, 4});

  Tensor z = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor q = square_test_op(z);
  CHECK(q.producer()->saved.size() == 1);
  sum(q).backward();
  CHECK(q.producer()->saved.empty());  // freed by a backward without retain_graph
}

TEST_CASE("BackwardStepper: one entry at a time, in reverse execution order") {
  // x (3,) -> a = x + 1 (#0) -> v = reshape(a, (3,1)) (#1) -> e = expand(v, (3,2)) (#2) -> s = sum(e) (#3)
  tape().clear();
  Tensor x = tensor({1, 2, 3}, {3}, kF64).requires_grad_();
  Tensor a = x + 1.0;
  Tensor v = reshape(a, {3, 1});
  Tensor e = expand(v, {3, 2});
  Tensor s = sum(e);
  BackwardStepper step(s);
  CHECK(step.remaining() == 4);

  CHECK(step.peek().op == "sum");
  CHECK(step.step().tape_position == 3);
  require_values(step.last_output_grads().at(0), {1});
  CHECK(step.last_input_grads().at(0).shape() == Shape{3, 2});
  require_values(step.last_input_grads().at(0), {1, 1, 1, 1, 1, 1});
  require_values(step.pending_grad(e), {1, 1, 1, 1, 1, 1});

  CHECK(step.peek().op == "expand");
  CHECK(step.step().tape_position == 2);
  CHECK_FALSE(step.pending_grad(e).defined());  // consumed
  require_values(step.last_input_grads().at(0), {2, 2, 2});
  CHECK(step.last_input_grads().at(0).shape() == Shape{3, 1});

  CHECK(step.step().op == "reshape");
  CHECK(step.last_output_grads().at(0).shape() == Shape{3, 1});
  CHECK(step.last_input_grads().at(0).shape() == Shape{3});

  CHECK_FALSE(x.grad().defined());  // leaves see nothing until their entry runs
  CHECK(step.remaining() == 1);
  const Entry& add_e = step.step();
  CHECK(add_e.op == "add");
  CHECK(add_e.tape_position == 0);
  require_values(step.last_input_grads().at(0), {2, 2, 2});
  CHECK_FALSE(step.last_input_grads().at(1).defined());  // the constant 1.0
  CHECK(step.done());
  require_values(x.grad(), {2, 2, 2});
  CHECK_THROWS_WITH_AS(step.peek(), "backward: no entries left to step", Error);
  CHECK_THROWS_WITH_AS(step.step(), "backward: no entries left to step", Error);
}

TEST_CASE("BackwardStepper: a gradient step() showed stays as shown, run() keeps none") {
  // sum(x * 2 + x * 3): the entry of x * 3, recorded last, runs first and gives x its .grad;
  // that of x * 2 adds to it
  Tensor x = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor twice = x * 2.0, thrice = x * 3.0;
  BackwardStepper step(sum(add(twice, thrice)));
  step.step();  // sum
  step.step();  // add
  CHECK(step.step().op == "mul");  // thrice
  const Tensor shown = step.last_input_grads().at(0);
  require_values(shown, {3, 3});
  step.step();  // twice adds 2 to x.grad: not to the gradient shown above
  require_values(x.grad(), {5, 5});
  require_values(shown, {3, 3});

  Tensor y = tensor({1, 2}, {2}, kF64).requires_grad_();
  BackwardStepper all(sum(add(y * 2.0, y * 3.0)));
  all.run();
  CHECK(all.last_input_grads().empty());
  CHECK(all.last_output_grads().empty());
  require_values(y.grad(), {5, 5});
}

TEST_CASE("anomaly mode: a non-finite gradient names the entry") {
  tape().clear();
  Tensor x = ones({3}, kF64).requires_grad_();
  Tensor b = ones({1}, kF64).requires_grad_();
  Tensor y = x + x;
  Tensor z = x + b;
  AnomalyGuard anomaly;
  CHECK_THROWS_WITH_AS(y.backward(tensor({1, NAN, 1}, {3}, kF64)),
                       doctest::Contains("add: anomaly: backward of tape entry #0 'add' produced NaN or Inf in the "
                                         "gradient for input 0 (3,)"),
                       Error);
  // b's gradient is a sum inside add's backward rule: the error still names the entry.
  CHECK_THROWS_WITH_AS(z.backward(tensor({1, 1, INFINITY}, {3}, kF64)),
                       doctest::Contains("add: in the backward rule of tape entry #1 'add': sum: anomaly"), Error);
}

TEST_CASE("backward: a saved tensor modified in place is an error") {
  Tensor x = tensor({1, 2, 3}, {3}, kF64).requires_grad_();
  sum(square_test_op(x)).backward();
  require_values(x.grad(), {2, 4, 6});
  fill_(ones({3}, kF64), 5);  // writes elsewhere do not matter
  for (auto write : {+[](const Tensor& t) { fill_(t, 0); }, +[](const Tensor& t) { copy_(t, ones({3}, kF64)); },
                     +[](const Tensor& t) { fill_(make_view(t, {1}, {1}, 2), 0); }}) {
    Tensor s = sum(square_test_op(x));
    write(x);
    CHECK_THROWS_WITH_AS(s.backward(), doctest::Contains("square_test_op: saved tensor 'x' (3,) of tape entry"),
                         Error);
    CHECK_FALSE(s.producer()->released);  // found before any entry ran
    CHECK_THROWS_WITH_AS(s.backward(), doctest::Contains("was modified in place after it was saved"), Error);
  }
  require_values(x.grad(), {2, 4, 6});  // no partial gradients from the failed passes

  Tensor s = sum(square_test_op(x));  // a write between steps is caught by the next step
  BackwardStepper step(s);
  step.step();
  fill_(x.detach(), 1);
  CHECK_THROWS_WITH_AS(step.step(), doctest::Contains("modified in place"), Error);
}

TEST_CASE("backward: broadcast inputs get gradients of their own shapes") {
  Tensor x = zeros({2, 3}, kF64).requires_grad_();
  Tensor row = zeros({3}, kF64).requires_grad_();
  Tensor col = zeros({2, 1}, kF64).requires_grad_();
  Tensor c = scalar(0, kF64).requires_grad_();
  sum(x + row + col + c).backward();
  CHECK(x.grad().shape() == Shape{2, 3});
  require_values(x.grad(), {1, 1, 1, 1, 1, 1});
  CHECK(row.grad().shape() == Shape{3});
  require_values(row.grad(), {2, 2, 2});
  CHECK(col.grad().shape() == Shape{2, 1});
  require_values(col.grad(), {3, 3});
  CHECK(c.grad().shape() == Shape{});
  require_values(c.grad(), {6});
}

TEST_CASE("backward: non-contiguous leaves get contiguous gradients of their shape") {
  Tensor t = noncontig64({2, 3}, 1);
  Tensor base = zeros({1, 3}, kF64);
  Tensor e = make_view(base, {2, 3}, {0, 1}, 0).requires_grad_();  // an expanded leaf
  Tensor x = zeros({2, 3}, kF64).requires_grad_();
  sum(t + e).backward();
  sum(x).backward();  // sum's rule returns an expanded (stride 0) gradient
  for (const Tensor& leaf : {t, e, x}) {
    CHECK(leaf.grad().shape() == Shape{2, 3});
    CHECK(leaf.grad().strides() == Shape{3, 1});
    CHECK(leaf.grad().storage() != leaf.storage());
    require_values(leaf.grad(), {1, 1, 1, 1, 1, 1});
  }
}

TEST_CASE("backward of several tensors: the gradient of sum_o <o, grad_o> in one pass") {
  // out = x * w (2,), aux = sum(w * w) (): d/dx = g_out * w, d/dw = g_out * x + 2 w g_aux.
  Tensor x = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor w = tensor({3, -4}, {2}, kF64).requires_grad_();
  Tensor out = x * w, aux = sum(w * w);
  tg::backward({out, aux}, {tensor({10, 100}, {2}, kF64), scalar(0.5, kF64)});
  require_values(x.grad(), {30, -400}, 0);
  require_values(w.grad(), {10 + 3, 200 - 4}, 0);

  // The same as one backward of the sum, and as two passes with retain_graph.
  Tensor a = tensor({1, 2}, {2}, kF64).requires_grad_(), b = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor h = a * a;
  tg::backward({sum(h), sum(h * 3.0)});  // one-element tensors: grads default to ones
  Tensor h2 = b * b;
  (sum(h2) + sum(h2 * 3.0)).backward();
  require_values(a.grad(), b.grad().to_vector<double>(), 0);

  // A tensor listed twice, or computed from another listed one, gets both contributions; leaves too.
  Tensor c = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor d = c * 2.0;
  tg::backward({d, c * 2.0 + d, c}, {ones({2}, kF64), ones({2}, kF64), full({2}, 5.0, kF64)});
  require_values(c.grad(), {2 + 4 + 5, 2 + 4 + 5}, 0);
}

TEST_CASE("backward of several tensors: errors name the tensor") {
  Tensor x = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor y = x * 2.0;
  CHECK_THROWS_WITH_AS(tg::backward({y, sum(y)}, {ones({2}, kF64)}),
                       "backward: got 1 gradients for 2 tensors", Error);
  CHECK_THROWS_WITH_AS(tg::backward({sum(y), y}),
                       "backward: grad_output can be omitted only for a one-element tensor, but tensor 1 has "
                       "shape (2,)", Error);
  CHECK_THROWS_WITH_AS(tg::backward({sum(y), ones({2})}, {{}, ones({2})}),
                       doctest::Contains("backward: tensor 1 (2,) float32 does not require grad"), Error);
  CHECK_THROWS_WITH_AS(tg::backward({y, y}, {ones({2}, kF64), ones({3}, kF64)}),
                       doctest::Contains("does not match tensor 1"), Error);
  CHECK_FALSE(x.grad().defined());  // checked before anything ran
}

TEST_CASE("backward: run() sums in place what no one else holds, and never what someone does") {
  // y = x * 2 + x * 3: x gets two gradients; the sum is written into the first one, which the
  // rule of x * 3 returned and nobody else holds. A seed the caller holds is never written.
  Tensor x = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor seed = tensor({1, 10}, {2}, kF64);
  (x * 2.0 + x * 3.0).backward(seed);
  require_values(x.grad(), {5, 50}, 0);
  require_values(seed, {1, 10}, 0);
  // x + x: one gradient for two inputs; the leaf's .grad must not alias the other.
  Tensor z = tensor({1, 2}, {2}, kF64).requires_grad_();
  Tensor g = tensor({1, 1}, {2}, kF64);
  (z + z).backward(g);
  require_values(z.grad(), {2, 2}, 0);
  require_values(g, {1, 1}, 0);
  CHECK(z.grad().storage() != g.storage());
}

namespace {

// y = 3x as a tape entry whose fast rule adds its gradient, 3 grad, into x's gathered one where
// offered (add_into_gathered), as linear and layer_norm do; `offered` records whether it was.
// With return_other, the rule takes the gathered gradient but returns a new tensor: a broken rule.
Tensor triple(const Tensor& x, std::vector<bool>& offered, bool return_other = false) {
  Tensor y;
  {
    NoGradGuard no_grad;
    y = x * 3.0;
  }
  if (Recorder rec("triple_test", {x}, {y}); rec) {
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {ctx.grad() * 3.0}; },
                 [&offered, return_other](const BackwardContext& ctx) -> TensorList {
                   Tensor gathered = ctx.add_into_gathered(0);
                   offered.push_back(gathered.defined());
                   if (!gathered.defined()) return {ctx.grad() * 3.0};
                   add_into_(gathered, ctx.grad() * 3.0);
                   return {return_other ? ctx.grad() * 3.0 : gathered};
                 });
  }
  return y;
}

}  // namespace

TEST_CASE("backward: a fast rule may add its gradient into the one its input has gathered") {
  // h = 2x feeds triple (first) and 5h (second): backward runs 5h's entry first, so when
  // triple's rule runs h has gathered 5 grad, and the rule adds 3 grad into it.
  Tensor x = tensor({1, 2, 3}, {3}, kF64).requires_grad_();
  const Tensor seed = tensor({1, 10, 100}, {3}, kF64);
  std::vector<bool> offered;
  auto loss_of = [&] {
    const Tensor h = x * 2.0;
    const Tensor tripled = triple(h, offered);  // before 5h: the operands of + have no set order
    return tripled + h * 5.0;
  };
  loss_of().backward(seed);
  require_values(x.grad(), {16, 160, 1600});  // (3 + 5) * 2 * seed
  CHECK(offered == std::vector<bool>{true});

  SUBCASE("not offered where the gradients are shown, a graph is created, or in anomaly mode") {
    x.zero_grad();
    BackwardStepper step(loss_of(), seed);
    while (!step.done()) step.step();
    {
      AnomalyGuard anomaly;
      loss_of().backward(seed);
    }
    loss_of().backward(seed, {}, /*create_graph=*/true);  // the reference rule runs: no record
    require_values(x.grad(), {48, 480, 4800});
    CHECK(offered == std::vector<bool>{true, false, false});
  }
  SUBCASE("not offered when someone else holds the gathered gradient") {
    // h's only other gradient is the seed itself (h + triple(h): add passes it on), which the
    // caller holds
    x.zero_grad();
    const Tensor h = x * 2.0;
    const Tensor tripled = triple(h, offered);
    (h + tripled).backward(seed);
    require_values(x.grad(), {8, 80, 800});
    CHECK(offered == std::vector<bool>{true, false});
  }
  SUBCASE("a rule that takes the gathered gradient must return it") {
    const Tensor h = x * 2.0;
    const Tensor tripled = triple(h, offered, true);
    CHECK_THROWS_WITH_AS((tripled + h * 5.0).backward(seed),
                         doctest::Contains("added into the gradient gathered for input 0 but returned another "
                                           "tensor"),
                         Error);
  }
}
