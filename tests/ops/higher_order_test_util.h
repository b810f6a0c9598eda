#pragma once
// Checks of an op's reference and forward-mode rules (core/tape.h) in float64, for the op tests
// that go beyond its record in the op registry (options, shapes, masks):
//   require_second_order     the gradient of the gradient against finite differences
//   require_forward_mode     tg::jvp against finite differences along the same tangents
//   require_reference_matches_fast   the reference rule's gradient against the fast path's
#include <string>
#include <vector>

#include "core/forward_ad.h"
#include "core/grad.h"
#include "test_util.h"

namespace tg::test {

// gradcheck of g(inputs, v) = sum_i <dL/dinput_i, w_i>, L = <fn(inputs), v>, with the gradients
// taken by tg::grad with create_graph: checks the reference rules' dependence on the inputs and
// on the incoming gradient v (fixed random v and w). `op` must be on g's tape.
inline void require_second_order(const std::string& op, const GradcheckFn& fn, std::vector<Tensor> inputs) {
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
  require_gradcheck(op, g, inputs);
}

// tg::jvp of fn along random tangents, against (fn(x + eps t) - fn(x - eps t)) / (2 eps).
inline void require_forward_mode(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double atol = 1e-6) {
  std::vector<Tensor> primals, tangents;
  for (size_t i = 0; i < inputs.size(); ++i) {
    primals.push_back(inputs[i].detach());
    tangents.push_back(rand64(inputs[i].shape(), 200 + i).detach());
  }
  const auto [outs, out_tangents] =
      jvp([&](const TensorList& xs) { return TensorList{fn(std::vector<Tensor>(xs.begin(), xs.end()))}; }, primals,
          tangents);
  const double eps = 1e-6;
  auto along = [&](double step) {
    std::vector<Tensor> xs;
    for (size_t i = 0; i < primals.size(); ++i) xs.push_back(add(primals[i], mul(tangents[i], step)));
    return fn(xs);
  };
  require_close(out_tangents[0], div(sub(along(eps), along(-eps)), 2 * eps), atol, 1e-5);
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
