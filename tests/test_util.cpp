#include "test_util.h"

#include <algorithm>
#include <cmath>

namespace tg::test {

namespace {
std::set<std::string>& registry() {
  static std::set<std::string> ops;
  return ops;
}
int skipped = 0;
}  // namespace

bool register_gradcheck_test(const std::string& op) { return registry().insert(op).second; }
const std::set<std::string>& gradcheck_tested_ops() { return registry(); }

void require_gradcheck(const std::string& op, const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                       const GradcheckOptions& options) {
  GradcheckResult r = gradcheck(fn, inputs, options);
  INFO(r.report);
  REQUIRE(r.ok);
  INFO("ops on the tape: ", fmt::format("{}", fmt::join(r.ops, ", ")));
  REQUIRE(std::find(r.ops.begin(), r.ops.end(), op) != r.ops.end());
}

Tensor rand64(const Shape& shape, uint64_t seed, double low, double high) {
  Generator gen(seed);
  Tensor t = rand(shape, kF64, kCPU, gen, low, high);
  t.requires_grad_();
  return t;
}

Tensor noncontig64(const Shape& shape, uint64_t seed) {
  // Allocate the last two dims swapped, then view them back: same shape, strides swapped.
  Shape swapped = shape;
  REQUIRE(shape.size() >= 2);
  std::swap(swapped[shape.size() - 1], swapped[shape.size() - 2]);
  Generator gen(seed);
  Tensor base = rand(swapped, kF64, kCPU, gen, -1, 1);
  Shape strides = base.strides();
  std::swap(strides[shape.size() - 1], strides[shape.size() - 2]);
  Tensor t = make_view(base, shape, strides, 0);
  t.requires_grad_();
  REQUIRE_FALSE(t.is_contiguous());
  return t;
}

void require_close(const Tensor& actual, const Tensor& expected, double atol, double rtol) {
  REQUIRE(actual.shape() == expected.shape());
  std::vector<double> a = to_dtype_copy(actual, kF64).to_vector<double>();
  std::vector<double> e = to_dtype_copy(expected, kF64).to_vector<double>();
  size_t worst = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    double excess = std::abs(a[i] - e[i]) - (atol + rtol * std::abs(e[i]));
    if (std::isnan(a[i]) != std::isnan(e[i])) excess = INFINITY;
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  INFO(fmt::format("worst element {} of {}: actual {:.9g} expected {:.9g}", worst, shape_str(actual.shape()),
                   a.empty() ? 0 : a[worst], e.empty() ? 0 : e[worst]));
  REQUIRE(worst_excess <= 0);
}

void require_values(const Tensor& actual, const std::vector<double>& expected, double atol) {
  REQUIRE(actual.numel() == static_cast<int64_t>(expected.size()));
  // Viewed as actual's shape: tensor() cannot make a 0-d tensor (an empty shape means 1-D).
  Tensor flat = tensor(expected, {}, kF64);
  require_close(actual, make_view(flat, actual.shape(), contiguous_strides(actual.shape()), 0), atol, 0);
}

bool gpu_available_or_skip() {
  if (cuda_device_count() > 0) return true;
  ++skipped;
  return false;
}
int skipped_gpu_cases() { return skipped; }

}  // namespace tg::test
