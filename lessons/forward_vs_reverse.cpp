// Lesson: forward mode (jvp) against reverse mode (backward) on one small function.
//   y = tanh(W x),  W (m,n), x (n): J = diag(1 - y^2) W, an (m,n) Jacobian
//   forward: J v for a tangent v of x (one pass per column); reverse: u^T J for a u of y (one
//   pass per row); both agree: u . (J v) = (u^T J) . v
// Settings: n inputs and m outputs (2 and 3 by default).
#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "core/forward_ad.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
double dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  const std::vector<double> x = values(a), y = values(b);
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}
}  // namespace

void forward_vs_reverse_lesson(LessonLog& log) {
  Generator gen(29);
  const auto n = static_cast<int64_t>(log.setting("inputs", 3, {1, 2, 3, 4, 6}, "n, the elements of x"));
  const auto m = static_cast<int64_t>(log.setting("outputs", 2, {1, 2, 3, 4, 6}, "m, the elements of y"));
  log.say("Two ways to take a derivative through the same ops. Forward mode carries a tangent beside each value: "
          "every op that runs also computes its output's tangent from its inputs' (its forward-mode rule), so one "
          "forward pass gives J v, the Jacobian times a direction v of the inputs. Reverse mode (backward) runs "
          "the tape from the end: one pass gives u^T J, for a direction u of the outputs.");
  Tensor W = log.input("W", randn({m, n}, kF64, kCPU, gen));
  Tensor x = log.input("x", randn({n}, kF64, kCPU, gen).requires_grad_());
  Tensor v = log.input("v", randn({n}, kF64, kCPU, gen));
  Tensor u = log.input("u", randn({m}, kF64, kCPU, gen));
  log.show("W", W);
  log.show("x", x);
  auto f = [&](const TensorList& in) { return tanh(matmul(W, in[0])); };

  log.say("Forward mode: tg::jvp(f, {x}, {v}) runs f once on x, with v riding along. matmul's rule gives W v, "
          "tanh's multiplies it by 1 - y^2.");
  log.show("v", v);
  // On x's value: forward mode records nothing, so the tape below holds only the reverse pass.
  auto [outputs, tangents] = jvp([&](const TensorList& in) { return TensorList{f(in)}; }, {x.detach()}, {v});
  log.show("J v", tangents[0]);
  Tensor J, expected_jv;
  {
    NoGradGuard by_hand;
    Tensor y = f({x});
    J = mul(unsqueeze(sub(1.0, mul(y, y)), 1), W);  // diag(1 - y^2) W
    expected_jv = matmul(J, v);
  }
  log.show("J = diag(1 - y^2) W", J);
  log.fact("jvp's tangent is J v", max_abs_diff(tangents[0], expected_jv) < 1e-12);

  log.say("Reverse mode: y = f(x), then backward from sum(u * y): each entry's rule pulls the gradient back, "
          "and x.grad() is u^T J.");
  log.show("u", u);
  Tensor y = f({x}).set_name("y");
  log.show("y = tanh(W x)", y);
  log.backward_from(sum(mul(u, y)).set_name("u . y"));
  log.show("u^T J", x.grad());
  Tensor expected_ujt;
  {
    NoGradGuard by_hand;
    expected_ujt = matmul(u, J);
  }
  log.fact("backward gives u^T J", max_abs_diff(x.grad(), expected_ujt) < 1e-12);
  log.fact("both describe one Jacobian: u . (J v) = (u^T J) . v",
           std::abs(dot(u, tangents[0]) - dot(x.grad(), v)) < 1e-12);
  log.say(fmt::format("The whole J takes {} forward passes (one per input) or {} reverse passes (one per output): "
                      "here {} is cheaper. A training loss has one output and millions of inputs, which is why "
                      "training uses reverse mode; forward mode wins when there are few inputs and many outputs.",
                      n, m, n < m ? "forward mode" : m < n ? "reverse mode" : "neither"));
}

}  // namespace tg::lessons
