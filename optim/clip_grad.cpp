#include "optim/clip_grad.h"

#include <cmath>

#include <fmt/format.h>

#include "core/cuda/cuda_only.h"
#include "optim/norm_term.h"

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

// The gradients on the CPU, which one parallel region each visits, and those on GPUs.
struct GradsByDevice {
  std::vector<Tensor> cpu, cuda;
};

GradsByDevice by_device(const std::vector<Tensor>& grads) {
  GradsByDevice split;
  for (const Tensor& g : grads) (g.is_cuda() ? split.cuda : split.cpu).push_back(g);
  return split;
}

void bump_versions(const std::vector<Tensor>& grads) {
  for (const Tensor& g : grads) g.storage()->bump_version();
}

}  // namespace

double clip_grad_norm(const std::vector<NamedParameter>& params, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) throw Error("clip_grad_norm", fmt::format("max_norm must be >= 0, got {}", max_norm));
  if (!(norm_type > 0)) throw Error("clip_grad_norm", fmt::format("norm_type must be > 0 or kInfNorm, got {}", norm_type));
  const GradsByDevice grads = by_device(defined_grads(params, "clip_grad_norm"));
  double total = grads_norm_part_cpu(grads.cpu, norm_type);
  const bool inf_norm = norm_type == kInfNorm;
  if (!grads.cuda.empty())
    TG_CUDA_ONLY(total = combine_norm_parts(total, grads_norm_part_cuda(grads.cuda, norm_type), inf_norm));
  if (!inf_norm) total = std::pow(total, 1 / norm_type);
  const double scale = max_norm / (total + 1e-6);
  if (!std::isfinite(total) || scale >= 1) return total;
  grads_scale_cpu(grads.cpu, scale);
  if (!grads.cuda.empty()) TG_CUDA_ONLY(grads_scale_cuda(grads.cuda, scale));
  bump_versions(grads.cpu);
  bump_versions(grads.cuda);
  return total;
}

void clip_grad_value(const std::vector<NamedParameter>& params, double clip) {
  if (!(clip >= 0)) throw Error("clip_grad_value", fmt::format("clip must be >= 0, got {}", clip));
  const GradsByDevice grads = by_device(defined_grads(params, "clip_grad_value"));
  grads_clamp_cpu(grads.cpu, clip);
  if (!grads.cuda.empty()) TG_CUDA_ONLY(grads_clamp_cuda(grads.cuda, clip));
  bump_versions(grads.cpu);
  bump_versions(grads.cuda);
}

}  // namespace tg
