// Lesson: checking your own function's gradient with tg::gradcheck.
//   gradcheck(fn, inputs): for a fixed random v of fn's output shape, compares backward(v) with
//   ((f(x + eps) - f(x - eps)) . v) / (2 eps), element by element, in float64.
#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/gradcheck.h"
#include "core/tape.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t T = 3, dk = 4;

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

Tensor attention(const std::vector<Tensor>& in) {  // q, k, v (T,dk)
  Tensor scores = mul(matmul(in[0], transpose(in[1], 0, 1)), 1 / std::sqrt(double(dk)));
  return matmul(softmax(masked_fill(scores, causal_mask(T), -INFINITY), -1), in[2]);
}
}  // namespace

void gradcheck_lesson(LessonLog& log) {
  Generator gen(16);
  log.say("Every op of tapegrad is gradchecked in its tests. Your own function, built from ops, can be checked the "
          "same way: tg::gradcheck(fn, inputs) runs fn's backward and compares it with central finite differences "
          "in float64, element by element, and names the worst element.");
  Tensor q = log.input("q", randn({T, dk}, kF64, kCPU, gen).requires_grad_());
  Tensor k = log.input("k", randn({T, dk}, kF64, kCPU, gen).requires_grad_());
  Tensor v = log.input("v", randn({T, dk}, kF64, kCPU, gen).requires_grad_());
  log.show("q", q);
  GradcheckResult attention_check = gradcheck(attention, {q, k, v});
  log.say("gradcheck of causal attention softmax(mask(q k^T / sqrt(d_k))) v over q, k and v: " +
          attention_check.report);
  log.fact("causal attention passes gradcheck", attention_check.ok);

  log.say("Now an op of your own with its own backward rule. cube(x) = x^3 records one entry with Recorder and "
          "saves x; its rule is dL/dx = dL/dout * 3 x^2.");
  Tensor x = log.input("x", randn({4}, kF64, kCPU, gen).requires_grad_());
  log.show("x", x);
  Tensor y = cube(x, 3).set_name("x^3");
  log.show("x^3", y);
  GradcheckResult right = gradcheck([](const std::vector<Tensor>& in) { return cube(in[0], 3); }, {x});
  log.say("gradcheck of cube with dL/dx = dL/dout * 3 x^2: " + right.report);
  log.fact("the right rule passes gradcheck", right.ok);

  log.say("A classic slip: the rule written as dL/dx = dL/dout * 2 x^2 (the exponent of x^2 taken for the factor). "
          "Forward is still right, so nothing else would notice; gradcheck does.");
  GradcheckResult wrong = gradcheck([](const std::vector<Tensor>& in) { return cube(in[0], 2); }, {x});
  log.say("gradcheck of cube with dL/dx = dL/dout * 2 x^2: " + wrong.report);
  log.fact("the wrong rule fails gradcheck", !wrong.ok);
  log.fact("at the worst element the analytic gradient is 2/3 of the numeric one",
           std::abs(wrong.analytic / wrong.numeric - 2.0 / 3.0) < 1e-4);

  log.say("Backward through the right cube, loss = sum(x^3): dx = 3 x^2.");
  log.backward_from(sum(y).set_name("loss"));
  log.show("dL/dx", x.grad());
  NoGradGuard side_calculation;
  log.fact("dx equals 3 x^2", max_abs_diff(x.grad(), mul(mul(x, x), 3.0)) < 1e-12);
}

}  // namespace tg::lessons
