// Lesson: checking your own function's gradient with tg::gradcheck.
//   gradcheck(fn, inputs): for a fixed random v of fn's output shape, compares backward(v) with
//   ((f(x + eps) - f(x - eps)) . v) / (2 eps), element by element, in float64.
// Settings: gradcheck's step eps, and the factor the slipped rule writes for 3.
#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/gradcheck.h"
#include "core/tape.h"
#include "lessons/catalog.h"
#include "ops/common/elementwise.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t kTokens = 3, kDk = 4;

// Your own op: cube(x) = x^3, one tape entry with a hand-written backward rule
// dx = grad * slope * x^2, where the right slope is 3.
Tensor cube(const Tensor& x, double slope) {
  Tensor out;
  {
    NoGradGuard forward_only;  // the entry below is the only record of this op
    out = mul(mul(x, x), x);
  }
  Recorder rec("cube", {x}, {out});
  if (rec) {
    rec.save("x", x);
    rec.backward([slope](const BackwardContext& ctx) -> TensorList {
      const Tensor& saved_x = ctx.saved("x");
      return {mul(ctx.grad(), mul(mul(saved_x, saved_x), slope))};
    });
  }
  return out;
}

Tensor attention(const std::vector<Tensor>& in) {  // q, k, v (kTokens,kDk)
  const Tensor& q = in[0];
  Tensor scores = mul(matmul(q, transpose(in[1], 0, 1)), scalar_like(q, 1 / std::sqrt(double(kDk))).set_name("1/sqrt(d_k)"));
  return matmul(softmax(masked_fill(scores, causal_mask(kTokens), -INFINITY), -1), in[2]);
}
}  // namespace

void gradcheck_lesson(LessonLog& log) {
  Generator gen(16);
  const double eps = log.setting("eps", 1e-6, {1e-6, 1e-4, 1e-2, 1e-1}, "gradcheck's finite-difference step");
  const double slip = log.setting("slip", 2, {2, 2.9, 2.99, 2.9999}, "the factor the slipped rule writes for 3");
  const GradcheckOptions options{.eps = eps};
  log.say("Every op of tapegrad is gradchecked in its tests. Your own function, built from ops, can be checked the "
          "same way: tg::gradcheck(fn, inputs) runs fn's backward and compares it with central finite differences "
          "in float64, element by element, and names the worst element.");
  Tensor q = log.input("q", randn({kTokens, kDk}, kF64, kCPU, gen).requires_grad_());
  Tensor k = log.input("k", randn({kTokens, kDk}, kF64, kCPU, gen).requires_grad_());
  Tensor v = log.input("v", randn({kTokens, kDk}, kF64, kCPU, gen).requires_grad_());
  log.show("q", q);
  GradcheckResult attention_check = gradcheck(attention, {q, k, v}, options);
  log.say("gradcheck of causal attention softmax(mask(q k^T / sqrt(d_k))) v over q, k and v: " +
          attention_check.report);
  log.fact("causal attention passes gradcheck", attention_check.ok);

  log.say("Now an op of your own with its own backward rule. cube(x) = x^3 records one entry with Recorder and "
          "saves x; its rule is dL/dx = dL/dout * 3 x^2.");
  Tensor x = log.input("x", randn({4}, kF64, kCPU, gen).requires_grad_());
  log.show("x", x);
  Tensor y = cube(x, 3).set_name("x^3");
  log.show("x^3", y);
  GradcheckResult right = gradcheck([](const std::vector<Tensor>& in) { return cube(in[0], 3); }, {x}, options);
  log.say(fmt::format("gradcheck of cube with dL/dx = dL/dout * 3 x^2, eps = {:g}: {} The central difference "
                      "((x + eps)^3 - (x - eps)^3) / (2 eps) is 3 x^2 + eps^2, so the numeric side itself is off by "
                      "eps^2 = {:g}; float64 allows atol 1e-6 + rtol 1e-4 of it.",
                      eps, right.report, eps * eps));
  log.fact("the right rule passes gradcheck", right.ok);

  log.say(fmt::format("A classic slip: the rule written as dL/dx = dL/dout * {:g} x^2 (2: the exponent of x^2 taken "
                      "for the factor). Forward is still right, so nothing else would notice; gradcheck does, when "
                      "the slip is larger than its tolerance.",
                      slip));
  GradcheckResult wrong = gradcheck([slip](const std::vector<Tensor>& in) { return cube(in[0], slip); }, {x}, options);
  log.say(fmt::format("gradcheck of cube with dL/dx = dL/dout * {:g} x^2: {}", slip, wrong.report));
  log.fact("the wrong rule fails gradcheck", !wrong.ok);
  log.fact(fmt::format("at the worst element the analytic gradient is {:g}/3 of the numeric one", slip),
           std::abs(wrong.analytic / wrong.numeric - slip / 3.0) < 1e-4);

  log.say("Backward through the right cube, loss = sum(x^3): dx = 3 x^2.");
  log.backward_from(sum(y).set_name("loss"));
  log.show("dL/dx", x.grad());
  NoGradGuard side_calculation;
  log.fact("dx equals 3 x^2", max_abs_diff(x.grad(), mul(mul(x, x), 3.0)) < 1e-12);
}

}  // namespace tg::lessons
