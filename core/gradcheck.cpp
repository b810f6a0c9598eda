#include "core/gradcheck.h"

#include <cmath>

#include <fmt/format.h>

#include "core/backward.h"
#include "core/copy.h"
#include "core/factories.h"
#include "core/forward_ad.h"
#include "core/grad.h"
#include "core/grad_mode.h"

namespace tg {

Tolerances default_tolerances(DType dtype) {
  if (dtype == kF64) return {.eps = 1e-6, .atol = 1e-6, .rtol = 1e-4};
  if (dtype == kF32) return {.eps = 1e-3, .atol = 1e-2, .rtol = 1e-2};
  throw Error("gradcheck", fmt::format("no tolerances for {}: the checks take float32 or float64 inputs",
                                       dtype_name(dtype)));
}

namespace {

// A copy of t with the same strides and offset layout (so non-contiguous stays so).
Tensor same_layout_copy(const Tensor& t) {
  int64_t span = 1;  // elements the view can reach
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.size(d) - 1) * t.strides()[d];
  Tensor base = zeros({t.numel() == 0 ? 0 : span}, t.dtype(), t.device());
  Tensor view = make_view(base, t.shape(), t.strides(), 0);
  copy_(view, t);
  return view;
}

void check_no_overlap(const Tensor& t, size_t i) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.size(d) > 1 && t.strides()[d] == 0)
      throw Error("gradcheck", fmt::format("input {} {} is an expanded view (stride 0 in dim {}); its "
                                           "elements alias, pass a contiguous copy", i, t.describe(), d));
}

// Storage offset of the flat (row-major) element `flat` of t.
int64_t element_offset(const Tensor& t, int64_t flat) {
  int64_t off = t.offset();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    off += (flat % t.size(d)) * t.strides()[d];
    flat /= t.size(d);
  }
  return off;
}

Shape unflatten(const Shape& shape, int64_t flat) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

// One element of a float32 or float64 tensor, by storage offset, on any device.
double get(const Tensor& t, int64_t off) {
  const size_t bytes = element_size(t.dtype());
  char* at = static_cast<char*>(t.storage()->data()) + off * bytes;
  if (t.dtype() == kF64) {
    double v = 0;
    copy_bytes(&v, kCPU, at, t.device(), bytes);
    return v;
  }
  float v = 0;
  copy_bytes(&v, kCPU, at, t.device(), bytes);
  return v;
}

void put(const Tensor& t, int64_t off, double v) {
  const size_t bytes = element_size(t.dtype());
  char* at = static_cast<char*>(t.storage()->data()) + off * bytes;
  const float f = static_cast<float>(v);
  copy_bytes(at, t.device(), t.dtype() == kF64 ? static_cast<const void*>(&v) : &f, kCPU, bytes);
}

std::vector<double> values(const Tensor& t) { return to_dtype_copy(t, kF64).to_vector<double>(); }

double dot(const Tensor& a, const Tensor& b) {
  std::vector<double> x = values(a), y = values(b);
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// The checks' own copies of the inputs (those requiring grad; the others as they are) and the
// tolerances for their dtype.
struct Work {
  std::vector<Tensor> inputs;
  Tolerances tol{};
};

Work prepare(const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  Work work;
  std::optional<DType> dtype;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    if (!in.defined() || !in.requires_grad()) {
      work.inputs.push_back(in);
      continue;
    }
    if (in.dtype() != kF64 && in.dtype() != kF32)
      throw Error("gradcheck", fmt::format("input {} {} must be float32 or float64", i, in.describe()));
    if (dtype && *dtype != in.dtype())
      throw Error("gradcheck", fmt::format("input {} {} is not {} like the inputs before it: one dtype, one "
                                           "tolerance", i, in.describe(), dtype_name(*dtype)));
    dtype = in.dtype();
    check_no_overlap(in, i);
    Tensor copy = same_layout_copy(in);
    copy.set_name(in.name());
    copy.requires_grad_();
    work.inputs.push_back(copy);
  }
  const Tolerances table = default_tolerances(dtype.value_or(kF64));
  work.tol = {options.eps.value_or(table.eps), options.atol.value_or(table.atol), options.rtol.value_or(table.rtol)};
  return work;
}

// Counts one compared element and keeps it if it is the worst so far (a failing one before any
// passing one).
void compare(GradcheckResult& r, int which, const Shape& shape, int64_t flat, double analytic, double numeric,
             const Tolerances& tol) {
  const double err = std::abs(analytic - numeric);
  const bool bad = !(err <= tol.atol + tol.rtol * std::abs(numeric));
  ++r.checked;
  if (r.input < 0 || (bad && r.ok) || (bad == !r.ok && err > r.error)) {
    r.input = which;
    r.index = unflatten(shape, flat);
    r.analytic = analytic;
    r.numeric = numeric;
    r.error = err;
  }
  if (bad) r.ok = false;
}

void finish(GradcheckResult& r, const char* check, const char* which, const Tolerances& tol) {
  r.report = r.input < 0 ? fmt::format("{}: no input requires grad; nothing checked", check)
                         : fmt::format("{} {}: {} elements; worst: {} {} at ({}) analytic {:.10g} numeric {:.10g} "
                                       "error {:.3g} (atol {:g}, rtol {:g})",
                                       check, r.ok ? "passed" : "FAILED", r.checked, which, r.input,
                                       fmt::join(r.index, ","), r.analytic, r.numeric, r.error, tol.atol, tol.rtol);
  if (r.input < 0) r.ok = false;
}

// The projection of y's shape the checks use: the same values at every call.
Tensor projection(const Tensor& y, uint64_t seed) {
  Generator gen(seed);
  return to_dtype_copy(randn(y.shape(), kF64, y.device(), gen), y.dtype());
}

// x -> d(fn(x) . v)/dx_i, with its history (create_graph): the function whose gradient is the
// second order, and whose jvp is forward over reverse.
GradcheckFn first_gradient(const GradcheckFn& fn, size_t i, uint64_t seed) {
  return [fn, i, seed](const std::vector<Tensor>& xs) {
    GradModeGuard grad_mode(true);
    Tensor y = fn(xs);
    if (!y.requires_grad()) return zeros_like(xs[i]);
    Tensor g = grad({y}, {xs[i]}, {projection(y, seed)}, {.create_graph = true, .allow_unused = true})[0];
    return g.defined() ? g : zeros_like(xs[i]);
  };
}

// The worst of several checks' results (a failing one first), with every op they saw.
GradcheckResult worst_of(const std::vector<GradcheckResult>& results) {
  GradcheckResult worst;
  worst.input = -1;
  for (const GradcheckResult& r : results) {
    const bool take = worst.input < 0 || (!r.ok && worst.ok) || (r.ok == worst.ok && r.error > worst.error);
    std::vector<std::string> ops = worst.ops;
    const int64_t checked = worst.checked + r.checked;
    if (take && r.input >= 0) worst = r;
    worst.checked = checked;
    for (const std::string& op : r.ops)
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
    worst.ops = std::move(ops);
  }
  return worst;
}

// The ops on fn's own tape, for a check whose analytic values come from another graph.
std::vector<std::string> forward_ops(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                     const GradcheckOptions& options) {
  GradModeGuard grad_mode(true);
  std::vector<std::string> ops;
  for (const auto& e : graph_entries(fn(prepare(inputs, options).inputs))) ops.push_back(e->op);
  return ops;
}

std::vector<size_t> differentiable(const std::vector<Tensor>& inputs) {
  std::vector<size_t> which;
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].defined() && inputs[i].requires_grad()) which.push_back(i);
  return which;
}

using Check = GradcheckResult (*)(const GradcheckFn&, const std::vector<Tensor>&, const GradcheckOptions&);

// `check` of each first gradient d(fn . v)/d(input i), taken with create_graph; the worst result,
// its report prefixed with `name` and the input.
GradcheckResult of_first_gradients(Check check, const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                   const GradcheckOptions& options, const char* name, const char* which) {
  std::vector<GradcheckResult> results;
  for (size_t i : differentiable(inputs)) {
    GradcheckResult r = check(first_gradient(fn, i, options.seed + 1), inputs, options);
    r.report = fmt::format("of d/d(input {}): {}", i, r.report);
    results.push_back(std::move(r));
  }
  GradcheckResult worst = worst_of(results);
  if (results.empty())
    finish(worst, name, which, {});
  else
    worst.report = fmt::format("{} {}", name, worst.report);
  return worst;
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  Work work = prepare(inputs, options);
  GradcheckResult result;
  Tensor y = fn(work.inputs);
  check_floating(y, "gradcheck", "fn's output");
  const Tensor v = projection(y, options.seed);
  if (y.requires_grad()) {
    for (const auto& e : graph_entries(y)) result.ops.push_back(e->op);
    y.backward(v);
  }

  NoGradGuard no_grad;
  for (size_t i : differentiable(work.inputs)) {
    const Tensor& x = work.inputs[i];
    const std::vector<double> analytic = x.grad().defined() ? values(x.grad()) : std::vector<double>(x.numel());
    for (int64_t flat = 0; flat < x.numel(); ++flat) {
      const int64_t off = element_offset(x, flat);
      const double original = get(x, off);
      put(x, off, original + work.tol.eps);
      const double plus = dot(fn(work.inputs), v);
      put(x, off, original - work.tol.eps);
      const double minus = dot(fn(work.inputs), v);
      put(x, off, original);
      compare(result, static_cast<int>(i), x.shape(), flat, analytic[flat], (plus - minus) / (2 * work.tol.eps),
              work.tol);
    }
  }
  finish(result, "gradcheck", "input", work.tol);
  std::vector<GradcheckResult> results{result};
  if (options.check_forward_ad) results.push_back(check_forward_ad(fn, inputs, options));
  if (options.check_fwd_over_rev) results.push_back(check_fwd_over_rev(fn, inputs, options));
  return results.size() == 1 ? result : worst_of(results);
}

GradcheckResult gradgradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                              const GradcheckOptions& options) {
  GradcheckResult worst = of_first_gradients(gradcheck, fn, inputs, options, "gradgradcheck", "input");
  worst.ops = forward_ops(fn, inputs, options);  // a reference rule may recompute without the op itself
  return worst;
}

GradcheckResult check_forward_ad(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                 const GradcheckOptions& options) {
  Work work = prepare(inputs, options);
  const std::vector<size_t> which = differentiable(work.inputs);
  GradcheckResult result;
  if (which.empty()) {
    finish(result, "forward-mode check", "output", work.tol);
    return result;
  }
  Generator gen(options.seed);
  TensorList primals, tangents;
  for (size_t i : which) {
    primals.push_back(work.inputs[i]);
    tangents.push_back(to_dtype_copy(randn(work.inputs[i].shape(), kF64, work.inputs[i].device(), gen),
                                     work.inputs[i].dtype()));
  }
  auto through_duals = [&](const TensorList& duals) {
    std::vector<Tensor> xs = work.inputs;
    for (size_t k = 0; k < which.size(); ++k) xs[which[k]] = duals[k];
    return TensorList{fn(xs)};
  };
  const auto [outputs, output_tangents] = jvp(through_duals, primals, tangents);
  check_floating(outputs[0], "check_forward_ad", "fn's output");

  // (f(x + eps t) - f(x - eps t)) / (2 eps), every input moved along its tangent at once.
  NoGradGuard no_grad;
  auto moved = [&](double step) {
    std::vector<std::vector<double>> originals;
    for (size_t k = 0; k < which.size(); ++k) {
      const Tensor& x = work.inputs[which[k]];
      const std::vector<double> t = values(tangents[k]);
      originals.emplace_back();
      for (int64_t flat = 0; flat < x.numel(); ++flat) {
        const int64_t off = element_offset(x, flat);
        originals.back().push_back(get(x, off));
        put(x, off, originals.back().back() + step * t[flat]);
      }
    }
    std::vector<double> y = values(fn(work.inputs));
    for (size_t k = 0; k < which.size(); ++k) {
      const Tensor& x = work.inputs[which[k]];
      for (int64_t flat = 0; flat < x.numel(); ++flat) put(x, element_offset(x, flat), originals[k][flat]);
    }
    return y;
  };
  const std::vector<double> plus = moved(work.tol.eps), minus = moved(-work.tol.eps);
  const std::vector<double> analytic = values(output_tangents[0]);
  for (size_t e = 0; e < analytic.size(); ++e)
    compare(result, 0, outputs[0].shape(), static_cast<int64_t>(e), analytic[e],
            (plus[e] - minus[e]) / (2 * work.tol.eps), work.tol);
  finish(result, "forward-mode check", "output", work.tol);
  return result;
}

GradcheckResult check_fwd_over_rev(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                   const GradcheckOptions& options) {
  return of_first_gradients(check_forward_ad, fn, inputs, options, "forward-over-reverse", "output");
}

}  // namespace tg
