#pragma once
// Checks of an op's reference and forward-mode rules (core/tape.h) in float64, for the op tests
// that go beyond its record in the op registry (options, shapes, masks):
//   require_second_order     the gradient of the gradient against finite differences, with
//                            respect to the inputs and to the incoming gradient
//   require_forward_mode     tg::jvp, and the jvp of the gradient, against finite differences
//   require_reference_matches_fast   the reference rule's gradient against the fast path's
#include <vector>

#include "core/grad.h"
#include "test_util.h"

namespace tg::test {

inline void require_passes(const GradcheckResult& r) {
  INFO(r.report);
  CHECK(r.checked > 0);
  REQUIRE(r.ok);
}

// gradcheck of g(inputs, v) = sum_i <dL/dinput_i, w_i>, L = <fn(inputs), v>, with the gradients
// taken by tg::grad with create_graph: checks the reference rules' dependence on the inputs and,
// unlike gradgradcheck, on the incoming gradient v too, as PyTorch's gradgradcheck does (fixed
// random v and w).
inline void require_second_order(const GradcheckFn& fn, std::vector<Tensor> inputs) {
  std::vector<Tensor> weights;
  for (size_t i = 0; i < inputs.size(); ++i) weights.push_back(rand64(inputs[i].shape(), 100 + i).detach());
  const GradcheckFn g = [&](const std::vector<Tensor>& in) {
    GradModeGuard grad_mode(true);  // gradcheck evaluates its finite differences without grad mode
    const std::vector<Tensor> xs(in.begin(), in.end() - 1);
    const TensorList grads = grad({fn(xs)}, xs, {in.back()}, {.create_graph = true, .allow_unused = true});
    Tensor total = scalar(0, kF64);
    for (size_t i = 0; i < grads.size(); ++i)
      if (grads[i].defined()) total = add(total, sum(mul(grads[i], weights[i])));
    return total;
  };
  Tensor v;
  {
    NoGradGuard no_grad;
    v = rand64(fn(inputs).shape(), 99);
  }
  inputs.push_back(v);
  require_passes(gradcheck(g, inputs));
}

// Forward mode: check_forward_ad and check_fwd_over_rev (core/gradcheck.h) must pass.
inline void require_forward_mode(const GradcheckFn& fn, const std::vector<Tensor>& inputs) {
  require_passes(check_forward_ad(fn, inputs));
  require_passes(check_fwd_over_rev(fn, inputs));
}

// The first-order gradients of <fn(inputs), v> by the reference rules (a backward creating a
// graph) and by the fast paths (a plain backward) agree.
inline void require_reference_matches_fast(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                           double atol = 1e-12, double rtol = 1e-10) {
  auto gradients = [&](bool create_graph) {
    std::vector<Tensor> xs;
    for (const Tensor& in : inputs) xs.push_back(in.detach().requires_grad_());
    const Tensor y = fn(xs);
    Generator gen(4321);
    return grad({y}, xs, {randn(y.shape(), y.dtype(), y.device(), gen)},
                {.create_graph = create_graph, .allow_unused = true});
  };
  const TensorList reference = gradients(true), fast = gradients(false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("input ", i);
    REQUIRE(reference[i].defined() == fast[i].defined());
    if (fast[i].defined()) require_close(reference[i].detach(), fast[i], atol, rtol);
  }
}

}  // namespace tg::test
