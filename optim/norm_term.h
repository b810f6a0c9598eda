#pragma once
// The pieces of a gradient norm that clip_grad_norm's CPU and GPU kernels share.
#include <cmath>

#include "core/cuda/host_device.h"

namespace tg {

// One element's share of a p-norm, |g|^p: a square or the absolute value for the usual p = 2 and
// p = 1 (no pow per element), pow otherwise.
TG_HOST_DEVICE inline double norm_term(double abs_g, double norm_type) {
  if (norm_type == 2) return abs_g * abs_g;
  if (norm_type == 1) return abs_g;
  return std::pow(abs_g, norm_type);
}

// Two parts of a norm together: their sum, or for the max norm (inf_norm) the larger, a NaN
// winning.
inline double combine_norm_parts(double total, double part, bool inf_norm) {
  if (!inf_norm) return total + part;
  return std::isnan(part) || part > total ? part : total;
}

}  // namespace tg
