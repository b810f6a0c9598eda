#include "optim/clip_grad.h"

#include <cmath>

#include <fmt/format.h>

#include "core/cuda/cuda_only.h"

namespace tg {

namespace {

// The defined gradients of `params` (contiguous; each on its parameter's device).
std::vector<Tensor> defined_grads(const std::vector<NamedParameter>& params, const char* op) {
  std::vector<Tensor> grads;
  for (const NamedParameter& p : params) {
    if (!p.tensor.defined()) throw Error(op, fmt::format("parameter '{}' is an undefined tensor", p.name));
    Tensor g = p.tensor.grad();
    if (!g.defined()) continue;
    if (!g.is_contiguous())
      throw Error(op, fmt::format("the gradient of '{}' {} is not contiguous", p.name, g.describe()));
    grads.push_back(g);
  }
  return grads;
}

double norm_part(const Tensor& grad, double norm_type) {
  if (grad.is_cuda()) TG_CUDA_ONLY(return grad_norm_part_cuda(grad, norm_type));
  return grad_norm_part_cpu(grad, norm_type);
}

}  // namespace

double clip_grad_norm(const std::vector<NamedParameter>& params, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) throw Error("clip_grad_norm", fmt::format("max_norm must be >= 0, got {}", max_norm));
  if (!(norm_type > 0)) throw Error("clip_grad_norm", fmt::format("norm_type must be > 0 or kInfNorm, got {}", norm_type));
  const std::vector<Tensor> grads = defined_grads(params, "clip_grad_norm");
  double total = 0;
  for (const Tensor& g : grads) {
    const double part = norm_part(g, norm_type);
    total = norm_type == kInfNorm ? (std::isnan(part) || part > total ? part : total) : total + part;
  }
  if (norm_type != kInfNorm) total = std::pow(total, 1 / norm_type);
  const double scale = max_norm / (total + 1e-6);
  if (!std::isfinite(total) || scale >= 1) return total;
  for (const Tensor& grad : grads) {
    if (grad.is_cuda())
      TG_CUDA_ONLY(grad_scale_cuda(grad, scale));
    else
      grad_scale_cpu(grad, scale);
    grad.storage()->bump_version();
  }
  return total;
}

void clip_grad_value(const std::vector<NamedParameter>& params, double clip) {
  if (!(clip >= 0)) throw Error("clip_grad_value", fmt::format("clip must be >= 0, got {}", clip));
  for (const Tensor& grad : defined_grads(params, "clip_grad_value")) {
    if (grad.is_cuda())
      TG_CUDA_ONLY(grad_clamp_cuda(grad, clip));
    else
      grad_clamp_cpu(grad, clip);
    grad.storage()->bump_version();
  }
}

}  // namespace tg
