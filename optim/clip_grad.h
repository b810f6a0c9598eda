#pragma once
// Gradient clipping over a set of parameters, as torch.nn.utils.clip_grad_norm_ /
// clip_grad_value_. Parameters without a .grad() are skipped. Both write the gradients in
// place, each on its own device (CPU or GPU).
#include <limits>
#include <vector>

#include "optim/optimizer.h"

namespace tg {

inline constexpr double kInfNorm = std::numeric_limits<double>::infinity();

// total = (sum over every gradient element g of |g|^norm_type)^(1/norm_type), or max |g| when
// norm_type = kInfNorm; 0 when no parameter has a gradient. If max_norm / (total + 1e-6) < 1,
// every gradient is multiplied by that factor. Returns total, measured before clipping.
// A non-finite total (a NaN or Inf gradient) is returned as it is and nothing is scaled, so
// the caller can see it and skip the step; PyTorch would scale by NaN or 0 instead.
//   max_norm >= 0, norm_type > 0 (or kInfNorm).
double clip_grad_norm(const std::vector<NamedParameter>& params, double max_norm, double norm_type = 2);

// Clamps every gradient element into [-clip, clip] (NaN stays NaN). clip >= 0.
void clip_grad_value(const std::vector<NamedParameter>& params, double clip);

// The kernels, on lists of contiguous gradients, on the CPU (clip_grad_cpu.cpp: every gradient of
// the list in one OpenMP parallel region) or on a GPU (clip_grad_cuda.cu: one launch per
// gradient, one thread per element):
// sum over g of |g|^norm_type, or max |g| for kInfNorm (NaN if any element is NaN); in double,
// summed on the CPU in an order that does not depend on the thread count.
double grads_norm_part_cpu(const std::vector<Tensor>& grads, double norm_type);
double grads_norm_part_cuda(const std::vector<Tensor>& grads, double norm_type);
// g *= scale (in place).
void grads_scale_cpu(const std::vector<Tensor>& grads, double scale);
void grads_scale_cuda(const std::vector<Tensor>& grads, double scale);
// g = clamp(g, -clip, clip) (in place); NaN stays NaN.
void grads_clamp_cpu(const std::vector<Tensor>& grads, double clip);
void grads_clamp_cuda(const std::vector<Tensor>& grads, double clip);

}  // namespace tg
