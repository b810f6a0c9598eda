// Lesson: backward recorded on the tape, and differentiated again (double backward).
//   y = sum(tanh(w * x)),  dy/dx = w (1 - tanh^2(w x)),  penalty = sum((dy/dx)^2)
//   d(penalty)/dx = -4 w^3 tanh(w x) (1 - tanh^2(w x))^2
#include <cmath>

#include "core/factories.h"
#include "core/functional.h"
#include "core/grad.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

void double_backward_lesson(LessonLog& log) {
  Generator gen(28);
  const auto n = static_cast<int64_t>(log.setting("n", 4, {1, 2, 4, 8}, "elements of x and w"));
  log.say("A backward pass is a computation like any other: each entry's rule multiplies and adds tensors. With "
          "create_graph, tapegrad runs each op's reference rule (written with tapegrad ops) with recording on, so "
          "the backward pass lands on the tape too, and its result can be differentiated again. This is how a "
          "gradient penalty, a Hessian-vector product or a MAML inner step is trained.");
  Tensor x = log.input("x", randn({n}, kF64, kCPU, gen).requires_grad_());
  Tensor w = log.input("w", randn({n}, kF64, kCPU, gen));
  log.show("x", x);
  log.show("w", w);
  Tensor y = sum(tanh(mul(w, x))).set_name("y");
  log.show("y = sum(tanh(w x))", y);

  log.say("tg::grad({y}, {x}, {}, {.create_graph = true}) runs backward with recording on. The entries it adds "
          "to the tape are the rules themselves (L is y here): tanh's dL/dx = dL/dout * (1 - out^2) as a mul, a sub "
          "and a mul, then mul's dL/dx = dL/dout * w as one more mul. sum's rule records nothing: the gradient it "
          "expands is the seed, a constant.");
  Tensor dx = grad({y}, {x}, {}, {.create_graph = true})[0].set_name("dy/dx");
  log.show("dy/dx", dx);
  Tensor t, expected_dx;
  {
    NoGradGuard by_hand;
    t = tanh(mul(w, x));
    expected_dx = mul(w, sub(1.0, mul(t, t)));
  }
  log.fact("dy/dx = w (1 - tanh^2(w x))", max_abs_diff(dx, expected_dx) < 1e-12);
  log.fact("dy/dx requires grad: it was computed by entries on the tape", dx.requires_grad());
  log.fact("x.grad() is untouched: tg::grad returns gradients rather than accumulating them", !x.grad().defined());

  log.say("A gradient penalty: the squared norm of dy/dx. Its backward goes through the entries the first "
          "backward recorded, then through the forward's own entries again (their saved x and output are the "
          "tensors themselves, with their history): step through it.");
  Tensor penalty = sum(mul(dx, dx)).set_name("penalty");
  log.show("penalty = sum((dy/dx)^2)", penalty);
  log.backward_from(penalty);
  Tensor expected;
  {
    NoGradGuard by_hand;
    Tensor s = sub(1.0, mul(t, t));
    expected = mul(mul(mul(mul(w, w), w), -4.0), mul(t, mul(s, s)));
  }
  log.show("d(penalty)/dx", x.grad());
  log.fact("d(penalty)/dx = -4 w^3 tanh(w x) (1 - tanh^2(w x))^2", max_abs_diff(x.grad(), expected) < 1e-12);

  log.say("The same machinery gives a Hessian-vector product without the Hessian: H v = d(dy/dx . v)/dx, one "
          "backward of a backward. Here H is diagonal, H_ii = -2 w_i^2 tanh(w_i x_i) (1 - tanh^2(w_i x_i)).");
  Tensor v = ones({n}, kF64);
  auto [value, hv] = hvp([&](const TensorList& in) { return sum(tanh(mul(w, in[0]))); }, {x.detach()}, {v});
  log.show("H v (v = ones)", hv[0]);
  Tensor expected_hv;
  {
    NoGradGuard by_hand;
    expected_hv = mul(mul(mul(w, w), -2.0), mul(t, sub(1.0, mul(t, t))));
  }
  log.fact("tg::hvp gives H v = -2 w^2 tanh(w x) (1 - tanh^2(w x)) for v = ones", max_abs_diff(hv[0], expected_hv) < 1e-12);
}

}  // namespace tg::lessons
