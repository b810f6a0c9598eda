#include "lessons/values.h"

#include <algorithm>
#include <cmath>

#include "core/copy.h"
#include "core/error.h"

namespace tg::lessons {

std::vector<double> values(const Tensor& t) {
  Tensor cpu = to_dtype_copy(to_device_copy(t.detach(), kCPU), kF64);
  const double* p = cpu.data<double>();
  return {p, p + cpu.numel()};
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  std::vector<double> va = values(a), vb = values(b);
  if (va.size() != vb.size())
    throw Error("max_abs_diff", "the tensors have " + std::to_string(va.size()) + " and " +
                                    std::to_string(vb.size()) + " elements");
  double worst = 0;
  for (size_t i = 0; i < va.size(); ++i) {
    double d = std::abs(va[i] - vb[i]);
    if (std::isnan(d)) return d;  // NaN compares false: std::max would hide it
    worst = std::max(worst, d);
  }
  return worst;
}

bool all_equal_to(const Tensor& t, double value) {
  std::vector<double> v = values(t);
  return std::all_of(v.begin(), v.end(), [value](double x) { return x == value; });
}

}  // namespace tg::lessons
