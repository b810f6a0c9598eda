#include "core/gradcheck.h"

#include <cmath>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/backward.h"

namespace tg {

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

void check_no_overlap(const Tensor& t, int i) {
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

double get(const Tensor& t, int64_t off) {
  double v = 0;
  copy_bytes(&v, kCPU, static_cast<char*>(t.storage()->data()) + off * 8, t.device(), 8);
  return v;
}

void put(const Tensor& t, int64_t off, double v) {
  copy_bytes(static_cast<char*>(t.storage()->data()) + off * 8, t.device(), &v, kCPU, 8);
}

double dot(const Tensor& a, const Tensor& b) {
  std::vector<double> x = to_dtype_copy(a, kF64).to_vector<double>(), y = b.to_vector<double>();
  double s = 0;
  for (size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

}  // namespace

GradcheckResult gradcheck(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                          const GradcheckOptions& options) {
  std::vector<Tensor> work;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& in = inputs[i];
    if (!in.defined() || !in.requires_grad()) {
      work.push_back(in);
      continue;
    }
    if (in.dtype() != kF64)
      throw Error("gradcheck", fmt::format("input {} {} must be float64: finite differences in float32 "
                                           "are too coarse to check anything", i, in.describe()));
    check_no_overlap(in, static_cast<int>(i));
    Tensor copy = same_layout_copy(in);
    copy.set_name(in.name());
    copy.requires_grad_();
    work.push_back(copy);
  }

  GradcheckResult result;
  Tensor y = fn(work);
  check_floating(y, "gradcheck", "fn's output");
  Generator gen(options.seed);
  Tensor v = randn(y.shape(), kF64, y.device(), gen);
  if (y.requires_grad()) {
    for (const auto& e : graph_entries(y)) result.ops.push_back(e->op);
    y.backward(to_dtype_copy(v, y.dtype()));
  }

  NoGradGuard no_grad;
  for (size_t i = 0; i < work.size(); ++i) {
    const Tensor& x = work[i];
    if (!x.defined() || !x.requires_grad()) continue;
    Tensor analytic = x.grad().defined() ? x.grad() : zeros_like(x);
    std::vector<double> analytic_values = analytic.to_vector<double>();
    for (int64_t flat = 0; flat < x.numel(); ++flat) {
      const int64_t off = element_offset(x, flat);
      const double original = get(x, off);
      put(x, off, original + options.eps);
      const double plus = dot(fn(work), v);
      put(x, off, original - options.eps);
      const double minus = dot(fn(work), v);
      put(x, off, original);
      const double numeric = (plus - minus) / (2 * options.eps);
      const double a = analytic_values[flat], err = std::abs(a - numeric);
      const bool bad = !(err <= options.atol + options.rtol * std::abs(numeric));
      ++result.checked;
      if (result.input < 0 || (bad && result.ok) || (bad == !result.ok && err > result.error)) {
        result.input = static_cast<int>(i);
        result.index = unflatten(x.shape(), flat);
        result.analytic = a;
        result.numeric = numeric;
        result.error = err;
      }
      if (bad) result.ok = false;
    }
  }
  result.report = result.input < 0
                      ? "gradcheck: no input requires grad; nothing checked"
                      : fmt::format("gradcheck {}: {} elements; worst: input {} at ({}) analytic {:.10g} "
                                    "numeric {:.10g} error {:.3g} (atol {:g}, rtol {:g})",
                                    result.ok ? "passed" : "FAILED", result.checked, result.input,
                                    fmt::join(result.index, ","), result.analytic, result.numeric,
                                    result.error, options.atol, options.rtol);
  if (result.input < 0) result.ok = false;
  return result;
}

}  // namespace tg
