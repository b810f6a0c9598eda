#include "optim/clip_grad.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/dispatch.h"
#include "core/strided_loop.h"

namespace tg {

namespace {

// The defined gradients of `params` (contiguous, CPU).
std::vector<Tensor> cpu_grads(const std::vector<NamedParameter>& params, const char* op) {
  std::vector<Tensor> grads;
  for (const NamedParameter& p : params) {
    if (!p.tensor.defined()) throw Error(op, fmt::format("parameter '{}' is an undefined tensor", p.name));
    Tensor g = p.tensor.grad();
    if (!g.defined()) continue;
    if (g.is_cuda()) throw Error(op, fmt::format("no CUDA kernel yet (the gradient of '{}' is on {})", p.name, g.device().str()));
    if (!g.is_contiguous()) throw Error(op, fmt::format("the gradient of '{}' {} is not contiguous", p.name, g.describe()));
    grads.push_back(g);
  }
  return grads;
}

// sum |g|^norm_type over one gradient, or max |g| for the inf norm (in double).
double norm_part(const Tensor& grad, double norm_type) {
  return dispatch_floating(grad.dtype(), "clip_grad_norm", [&](auto zero) {
    using T = decltype(zero);
    const T* g = grad.data<T>();
    const int64_t n = grad.numel();
    double acc = 0;
    if (norm_type == kInfNorm) {
      bool nan = false;  // max() would drop a NaN; it must be reported
#pragma omp parallel for reduction(max : acc) reduction(|| : nan) if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) {
        const double a = std::abs(static_cast<double>(g[i]));
        nan = nan || std::isnan(a);
        acc = std::max(acc, a);
      }
      if (nan) acc = std::nan("");
    } else {
#pragma omp parallel for reduction(+ : acc) if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) acc += std::pow(std::abs(static_cast<double>(g[i])), norm_type);
    }
    return acc;
  });
}

}  // namespace

double clip_grad_norm(const std::vector<NamedParameter>& params, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) throw Error("clip_grad_norm", fmt::format("max_norm must be >= 0, got {}", max_norm));
  if (!(norm_type > 0)) throw Error("clip_grad_norm", fmt::format("norm_type must be > 0 or kInfNorm, got {}", norm_type));
  const std::vector<Tensor> grads = cpu_grads(params, "clip_grad_norm");
  double total = 0;
  for (const Tensor& g : grads) {
    const double part = norm_part(g, norm_type);
    total = norm_type == kInfNorm ? (std::isnan(part) || part > total ? part : total) : total + part;
  }
  if (norm_type != kInfNorm) total = std::pow(total, 1 / norm_type);
  const double scale = max_norm / (total + 1e-6);
  if (!std::isfinite(total) || scale >= 1) return total;
  for (const Tensor& grad : grads) {
    dispatch_floating(grad.dtype(), "clip_grad_norm", [&](auto zero) {
      using T = decltype(zero);
      T* g = grad.data<T>();
      const T s = static_cast<T>(scale);
      const int64_t n = grad.numel();
#pragma omp parallel for if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) g[i] *= s;  // g *= scale (in place)
    });
    grad.storage()->bump_version();
  }
  return total;
}

void clip_grad_value(const std::vector<NamedParameter>& params, double clip) {
  if (!(clip >= 0)) throw Error("clip_grad_value", fmt::format("clip must be >= 0, got {}", clip));
  for (const Tensor& grad : cpu_grads(params, "clip_grad_value")) {
    dispatch_floating(grad.dtype(), "clip_grad_value", [&](auto zero) {
      using T = decltype(zero);
      T* g = grad.data<T>();
      const T hi = static_cast<T>(clip);
      const int64_t n = grad.numel();
#pragma omp parallel for if (n > kParallelGrain)
      for (int64_t i = 0; i < n; ++i) g[i] = g[i] > hi ? hi : (g[i] < -hi ? -hi : g[i]);  // = clamp, NaN kept
    });
    grad.storage()->bump_version();
  }
}

}  // namespace tg
