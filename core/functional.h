#pragma once
// Derivatives of whole functions, as torch.autograd.functional (tg::jvp is core/forward_ad.h):
//
//   auto [y, g] = tg::vjp(f, {x}, {v});       // f(x) and v^T J, one reverse pass
//   auto [loss, hv] = tg::hvp(loss_of, {x}, {v});  // f(x) and H v: the gradient of (grad f . v)
//   Tensor j = tg::jacobian(f, x);             // (out..., in...): one reverse pass per output element
//   Tensor h = tg::hessian(loss_of, x);        // (in..., in...)
//
// f takes the inputs and returns one tensor; hvp and hessian need a one-element f. The inputs
// are used as given (requiring grad or not: each call differentiates its own detached leaves),
// and no .grad() changes. jacobian and hessian assemble their result on the host, one row per
// pass: for small inputs, as in a lesson or a test.
#include <functional>
#include <utility>

#include "core/tensor.h"

namespace tg {

using ScalarFunction = std::function<Tensor(const TensorList&)>;

std::pair<Tensor, TensorList> vjp(const ScalarFunction& f, const TensorList& inputs, const Tensor& v);
std::pair<Tensor, TensorList> hvp(const ScalarFunction& f, const TensorList& inputs, const TensorList& v);
Tensor jacobian(const ScalarFunction& f, const Tensor& x);
Tensor hessian(const ScalarFunction& f, const Tensor& x);

}  // namespace tg
