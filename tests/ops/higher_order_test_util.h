#pragma once
// Second order and forward mode of an op against finite differences, in float64.
//
// Second order: for L = <fn(x), w> with a random w, the gradient g(x) is taken with
// create_graph, and its derivative along a random direction u (the Hessian-vector product H u,
// tg::grad of <g, u>) is compared with (g(x + eps u) - g(x - eps u)) / (2 eps). A linear op is
// checked inside a nonlinear fn (its output squared), so that the gradient reaching its backward
// rule has a history its reference rule must keep.
// Forward mode: tg::jvp's tangent of fn along u against (fn(x + eps u) - fn(x - eps u)) / (2 eps).
#include <functional>

#include "core/forward_ad.h"
#include "core/grad.h"
#include "test_util.h"

namespace tg::test {

struct FiniteDifference {
  double eps = 1e-6;
  double atol = 1e-6;
  double rtol = 1e-5;
};

using TensorFn = std::function<Tensor(const TensorList&)>;

// Random float64 tensors of the inputs' shapes (on the CPU, not requiring grad).
inline TensorList random_directions(const TensorList& inputs, uint64_t seed) {
  TensorList directions;
  for (const Tensor& x : inputs) directions.push_back(rand64(x.shape(), seed++).detach());
  return directions;
}

// x + step * u for every input, as fresh leaves requiring grad.
inline TensorList moved(const TensorList& inputs, const TensorList& directions, double step) {
  NoGradGuard no_grad;
  TensorList out;
  for (size_t i = 0; i < inputs.size(); ++i)
    out.push_back(add(inputs[i].detach(), mul(directions[i], step)).requires_grad_());
  return out;
}

// The gradients of <fn(x), w> (zeros for an input fn does not reach).
inline TensorList gradients(const TensorFn& fn, const TensorList& inputs, const Tensor& w, bool create_graph) {
  TensorList grads = grad({fn(inputs)}, inputs, {w}, {.retain_graph = std::nullopt, .create_graph = create_graph, .allow_unused = true});
  for (size_t i = 0; i < grads.size(); ++i)
    if (!grads[i].defined()) grads[i] = zeros_like(inputs[i].detach());
  return grads;
}

inline void require_second_order_matches_fd(const TensorFn& fn, const TensorList& inputs, FiniteDifference fd = {}) {
  const Tensor w = rand64(fn(inputs).shape(), 101).detach();
  const TensorList u = random_directions(inputs, 201);
  // H u: the gradient of <g, u>, through the graph the first backward recorded.
  TensorList g = gradients(fn, inputs, w, /*create_graph=*/true), roots, seeds;
  for (size_t i = 0; i < g.size(); ++i)
    if (g[i].requires_grad()) roots.push_back(g[i]), seeds.push_back(u[i]);
  REQUIRE(!roots.empty());  // fn's gradient depends on its inputs: else there is nothing to check
  TensorList hu = grad(roots, inputs, seeds, {.retain_graph = std::nullopt, .allow_unused = true});
  const TensorList plus = gradients(fn, moved(inputs, u, fd.eps), w, false);
  const TensorList minus = gradients(fn, moved(inputs, u, -fd.eps), w, false);
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("input ", i, " ", inputs[i].describe());
    const Tensor numeric = div(sub(plus[i], minus[i]), 2 * fd.eps);
    require_close(hu[i].defined() ? hu[i] : zeros_like(numeric), numeric, fd.atol, fd.rtol);
  }
}

inline void require_jvp_matches_fd(const TensorFn& fn, const TensorList& inputs, FiniteDifference fd = {}) {
  const TensorList u = random_directions(inputs, 301);
  auto [outs, tangents] = jvp([&](const TensorList& x) { return TensorList{fn(x)}; }, inputs, u);
  const Tensor numeric = div(sub(fn(moved(inputs, u, fd.eps)), fn(moved(inputs, u, -fd.eps))), 2 * fd.eps);
  require_close(outs[0], fn(inputs), 0, 0);
  require_close(tangents[0], numeric.detach(), fd.atol, fd.rtol);
}

// Both checks on fn.
inline void require_higher_order(const TensorFn& fn, const TensorList& inputs, FiniteDifference fd = {}) {
  require_second_order_matches_fd(fn, inputs, fd);
  require_jvp_matches_fd(fn, inputs, fd);
}

// y * y: a linear op's output made nonlinear, for require_second_order_matches_fd.
inline Tensor squared(const Tensor& y) { return mul(y, y); }

}  // namespace tg::test
