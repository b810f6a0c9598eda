// Gradients of gradients and forward mode, on hand-worked values: tg::grad (torch.autograd.grad),
// backward(create_graph), tg::jvp (torch.func.jvp), tg::vjp, tg::hvp, tg::jacobian, tg::hessian.
#include <doctest/doctest.h>

#include "core/forward_ad.h"
#include "core/functional.h"
#include "core/grad.h"
#include "core/square_test_op.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {
Tensor cube(const Tensor& x) { return mul(mul(x, x), x); }
}  // namespace

TEST_CASE("grad: x^3 to third order, with create_graph, leaving .grad() untouched") {
  Tensor x = tensor({1.0, 2.0, -3.0}, {3}, kF64).requires_grad_();
  Tensor y = sum(cube(x));
  Tensor dx = grad({y}, {x}, {}, {.create_graph = true})[0];  // 3 x^2
  require_values(dx, {3, 12, 27});
  CHECK(dx.requires_grad());
  Tensor ddx = grad({sum(dx)}, {x}, {}, {.create_graph = true})[0];  // 6 x
  require_values(ddx, {6, 12, -18});
  Tensor dddx = grad({sum(ddx)}, {x})[0];  // 6
  require_values(dddx, {6, 6, 6});
  CHECK_FALSE(dddx.requires_grad());
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("grad: grad_outputs weigh the outputs, several inputs, and a reused input sums out of place") {
  Tensor a = tensor({2.0}, {1}, kF64).requires_grad_(), b = tensor({5.0}, {1}, kF64).requires_grad_();
  Tensor y = mul(mul(a, b), a);  // a^2 b
  TensorList g = grad({y}, {a, b}, {tensor({3.0}, {1}, kF64)}, {.create_graph = true});
  require_values(g[0], {3 * 2 * 2 * 5});  // 3 * 2ab
  require_values(g[1], {3 * 4});          // 3 * a^2
  // d/db of dy/da = 3 * 2a: through the sum of a's two contributions, recorded on the tape.
  require_values(grad({g[0]}, {b})[0], {12});
}

TEST_CASE("grad: errors name the input, and allow_unused gives an undefined gradient") {
  Tensor x = tensor({1.0}, {1}, kF64).requires_grad_(), unused = tensor({1.0}, {1}, kF64).requires_grad_();
  Tensor constant = tensor({1.0}, {1}, kF64);
  Tensor y = sum(mul(x, x));
  CHECK_THROWS_WITH_AS(grad({y}, {x, unused}, {}, {.retain_graph = true}),
                       doctest::Contains("grad: input 1 (1,) float64 was not used to compute the outputs"), Error);
  TensorList g = grad({y}, {x, unused}, {}, {.retain_graph = true, .allow_unused = true});
  CHECK(g[0].defined());
  CHECK_FALSE(g[1].defined());
  CHECK_THROWS_WITH_AS(grad({y}, {constant}), doctest::Contains("grad: input 0 (1,) float64 does not require grad"),
                       Error);
  grad({y}, {x});  // without retain_graph (create_graph is off): the graph is freed
  CHECK_THROWS_WITH_AS(grad({y}, {x}), doctest::Contains("was already used by a backward pass"), Error);
}

TEST_CASE("backward(create_graph): the leaves' .grad() is differentiable, and sums out of place") {
  Tensor x = tensor({0.5, -1.0}, {2}, kF64).requires_grad_();
  sum(exp(mul(x, x))).backward({}, {}, /*create_graph=*/true);  // dx = 2x e^{x^2}
  Tensor dx = x.grad();
  REQUIRE(dx.requires_grad());
  require_values(dx, {2 * 0.5 * std::exp(0.25), -2 * std::exp(1.0)}, 1e-12);
  // d/dx sum(2x e^{x^2}) = (2 + 4x^2) e^{x^2}
  require_values(grad({sum(dx)}, {x})[0], {3 * std::exp(0.25), 6 * std::exp(1.0)}, 1e-12);
  sum(mul(x, x)).backward({}, {}, true);  // a second backward adds 2x into .grad() out of place
  CHECK(x.grad().impl() != dx.impl());
  require_values(dx, {2 * 0.5 * std::exp(0.25), -2 * std::exp(1.0)}, 1e-12);  // unchanged
  require_values(x.grad(), {std::exp(0.25) + 1, -2 * std::exp(1.0) - 2}, 1e-12);
}

TEST_CASE("jvp: outputs and their tangents in one forward pass") {
  Tensor x = tensor({0.0, 1.0}, {2}, kF64), v = tensor({2.0, -1.0}, {2}, kF64);
  auto [outs, tangents] = jvp([](const TensorList& in) { return TensorList{exp(in[0]), mul(in[0], in[0])}; }, {x}, {v});
  require_values(outs[0], {1, std::exp(1.0)}, 1e-12);
  require_values(tangents[0], {2, -std::exp(1.0)}, 1e-12);  // e^x v
  require_values(tangents[1], {0, -2}, 1e-12);               // 2x v
  CHECK_FALSE(outs[0].impl()->tangent);                     // the tangents leave with jvp
  CHECK_THROWS_WITH_AS(jvp([](const TensorList& in) { return TensorList{square_test_op(in[0])}; }, {x}, {v}),
                       doctest::Contains("'square_test_op' has no forward-mode rule"), Error);
  CHECK_THROWS_WITH_AS(jvp([](const TensorList& in) { return in; }, {x}, {tensor({1.0}, {1}, kF64)}),
                       doctest::Contains("jvp: tangent 0 (1,) float64 does not match its primal (2,) float64"), Error);
}

TEST_CASE("vjp, hvp, jacobian and hessian of a small function") {
  // f(x) = sum(x0^2 x1): gradient (2 x0 x1, x0^2), Hessian [[2 x1, 2 x0], [2 x0, 0]].
  auto f = [](const TensorList& in) {
    Tensor x0 = slice(in[0], 0, 0, 1), x1 = slice(in[0], 0, 1, 2);
    return sum(mul(mul(x0, x0), x1));
  };
  Tensor x = tensor({3.0, 2.0}, {2}, kF64);
  auto [y, g] = vjp(f, {x}, tensor({2.0}, {}, kF64));
  require_values(y, {18});
  require_values(g[0], {2 * 12, 2 * 9});
  auto [y2, hv] = hvp(f, {x}, {tensor({1.0, 1.0}, {2}, kF64)});
  require_values(hv[0], {4 + 6, 6});
  Tensor h = hessian(f, x);
  CHECK(h.shape() == Shape{2, 2});
  require_values(h, {4, 6, 6, 0});
  Tensor j = jacobian([](const TensorList& in) { return mul(in[0], in[0]); }, x);
  require_values(j, {6, 0, 0, 4});
  CHECK_FALSE(x.requires_grad());
  CHECK_THROWS_WITH_AS(hvp([](const TensorList& in) { return in[0]; }, {x}, {x}),
                       doctest::Contains("hvp: f must return one element"), Error);
}

TEST_CASE("gradgradcheck and the forward-mode checks catch a wrong rule") {
  // square_test_op's reference rule is its kernel: right to first order, but its gradient has
  // no history, so the second order is missing and gradgradcheck must fail.
  auto op = [](const std::vector<Tensor>& in) { return square_test_op(in[0]); };
  Tensor x = rand64({3}, 1, 0.5, 1);
  CHECK(gradcheck(op, {x}).ok);
  const GradcheckResult second = gradgradcheck(op, {x});
  INFO(second.report);
  CHECK_FALSE(second.ok);
  CHECK(second.report.starts_with("gradgradcheck of d/d(input 0): gradcheck FAILED"));
  auto good = [](const std::vector<Tensor>& in) { return exp(mul(in[0], in[1])); };
  const std::vector<Tensor> inputs{rand64({2, 3}, 2), rand64({3}, 3)};
  CHECK(gradgradcheck(good, inputs).ok);
  CHECK(check_forward_ad(good, inputs).ok);
  CHECK(check_fwd_over_rev(good, inputs).ok);
  CHECK(gradcheck(good, inputs, {.check_forward_ad = true, .check_fwd_over_rev = true}).ok);
}
