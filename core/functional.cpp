#include "core/functional.h"

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad.h"
#include "core/grad_mode.h"

namespace tg {

namespace {

// Fresh leaves requiring grad with the inputs' values: what each function differentiates.
TensorList leaves(const TensorList& inputs, const char* op) {
  TensorList out;
  for (const Tensor& in : inputs) {
    check_floating(in, op, "an input");
    out.push_back(in.detach().requires_grad_());
  }
  return out;
}

void check_like(const Tensor& v, const Tensor& t, const char* op, const char* what) {
  check_defined(v, op, "v");
  if (v.shape() != t.shape() || v.dtype() != t.dtype())
    throw Error(op, fmt::format("v {} does not match {} {}", v.describe(), what, t.describe()));
}

Tensor scalar_output(const ScalarFunction& f, const TensorList& xs, const char* op) {
  Tensor y = f(xs);
  check_floating(y, op, "f's output");
  if (y.numel() != 1) throw Error(op, fmt::format("f must return one element, got {}", y.describe()));
  return y;
}

// Row k of a (rows, cols) host matrix from a gradient of cols elements (zeros when undefined).
void put_row(std::vector<double>& matrix, int64_t k, const Tensor& g, int64_t cols) {
  if (!g.defined()) return;
  const std::vector<double> row = to_dtype_copy(g, kF64).to_vector<double>();
  std::copy(row.begin(), row.end(), matrix.begin() + k * cols);
}

Tensor one_hot_like(const Tensor& t, int64_t k) {
  std::vector<double> e(t.numel(), 0.0);
  e[k] = 1;
  return tensor(e, t.shape(), t.dtype(), t.device());
}

Shape joined(const Shape& a, const Shape& b) {
  Shape s = a;
  s.insert(s.end(), b.begin(), b.end());
  return s;
}

}  // namespace

std::pair<Tensor, TensorList> vjp(const ScalarFunction& f, const TensorList& inputs, const Tensor& v) {
  GradModeGuard grad_mode(true);
  const TensorList xs = leaves(inputs, "vjp");
  Tensor y = f(xs);
  check_like(v, y, "vjp", "f's output");
  if (!y.requires_grad()) {
    TensorList zeros;
    for (const Tensor& x : xs) zeros.push_back(zeros_like(x));
    return {y, zeros};
  }
  TensorList g = grad({y}, xs, {v}, {.allow_unused = true});
  for (size_t i = 0; i < g.size(); ++i)
    if (!g[i].defined()) g[i] = zeros_like(xs[i]);
  return {y.detach(), g};
}

std::pair<Tensor, TensorList> hvp(const ScalarFunction& f, const TensorList& inputs, const TensorList& v) {
  if (v.size() != inputs.size())
    throw Error("hvp", fmt::format("got {} vectors for {} inputs", v.size(), inputs.size()));
  GradModeGuard grad_mode(true);
  const TensorList xs = leaves(inputs, "hvp");
  for (size_t i = 0; i < xs.size(); ++i) check_like(v[i], xs[i], "hvp", "its input");
  Tensor y = scalar_output(f, xs, "hvp");
  TensorList hv(xs.size());
  if (y.requires_grad()) {
    // H v = d(g . v)/dx: the gradient of the first gradient g, with v as its grad_output.
    TensorList g = grad({y}, xs, {}, {.create_graph = true, .allow_unused = true});
    TensorList reached, vs;
    for (size_t i = 0; i < g.size(); ++i)
      if (g[i].defined() && g[i].requires_grad()) reached.push_back(g[i]), vs.push_back(v[i]);
    if (!reached.empty()) hv = grad(reached, xs, vs, {.allow_unused = true});
  }
  for (size_t i = 0; i < hv.size(); ++i)
    if (!hv[i].defined()) hv[i] = zeros_like(xs[i]);
  return {y.detach(), hv};
}

Tensor jacobian(const ScalarFunction& f, const Tensor& x) {
  GradModeGuard grad_mode(true);
  const Tensor leaf = leaves({x}, "jacobian")[0];
  Tensor y = f({leaf});
  check_floating(y, "jacobian", "f's output");
  std::vector<double> matrix(y.numel() * leaf.numel(), 0.0);
  for (int64_t k = 0; y.requires_grad() && k < y.numel(); ++k)
    put_row(matrix, k, grad({y}, {leaf}, {one_hot_like(y, k)}, {.retain_graph = true, .allow_unused = true})[0],
            leaf.numel());
  return tensor(matrix, joined(y.shape(), leaf.shape()), x.dtype(), x.device());
}

Tensor hessian(const ScalarFunction& f, const Tensor& x) {
  GradModeGuard grad_mode(true);
  const Tensor leaf = leaves({x}, "hessian")[0];
  Tensor y = scalar_output(f, {leaf}, "hessian");
  std::vector<double> matrix(leaf.numel() * leaf.numel(), 0.0);
  if (y.requires_grad()) {
    Tensor g = grad({y}, {leaf}, {}, {.create_graph = true, .allow_unused = true})[0];
    for (int64_t k = 0; g.defined() && g.requires_grad() && k < leaf.numel(); ++k)
      put_row(matrix, k, grad({g}, {leaf}, {one_hot_like(g, k)}, {.retain_graph = true, .allow_unused = true})[0],
              leaf.numel());
  }
  return tensor(matrix, joined(leaf.shape(), leaf.shape()), x.dtype(), x.device());
}

}  // namespace tg
