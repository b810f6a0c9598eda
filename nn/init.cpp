#include "nn/init.h"

#include <cmath>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/factories.h"

namespace tg::nn::init {

namespace {

void check_target(const Tensor& t, const char* fn) {
  check_defined(t, fn, "t");
  check_floating(t, fn, "t");
}

void check_spread(double value, const char* fn, const char* what, const Tensor& t) {
  if (!(std::isfinite(value) && value >= 0))
    throw Error(fn, fmt::format("{} must be finite and >= 0, got {} (t {})", what, value, t.describe()));
}

}  // namespace

double calculate_gain(Nonlinearity nonlinearity, double a) {
  switch (nonlinearity) {
    case Nonlinearity::linear:
    case Nonlinearity::sigmoid: return 1;
    case Nonlinearity::tanh: return 5.0 / 3;
    case Nonlinearity::relu: return std::sqrt(2.0);
    case Nonlinearity::leaky_relu: return std::sqrt(2.0 / (1 + a * a));
    case Nonlinearity::selu: return 3.0 / 4;
  }
  return 1;
}

std::pair<int64_t, int64_t> fan_in_and_fan_out(const Tensor& t) {
  check_defined(t, "fan_in_and_fan_out", "t");
  if (t.dim() < 2)
    throw Error("fan_in_and_fan_out", fmt::format("needs a tensor of at least 2 dims (out, in, ...), got {}",
                                                  t.describe()));
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

void uniform_(const Tensor& t, double low, double high, Generator& gen) {
  check_target(t, "uniform_");
  if (!(std::isfinite(low) && std::isfinite(high) && low <= high))
    throw Error("uniform_", fmt::format("needs finite low <= high, got [{}, {}) (t {})", low, high, t.describe()));
  copy_(t, rand(t.shape(), t.dtype(), t.device(), gen, low, high));
}

void normal_(const Tensor& t, double mean, double std, Generator& gen) {
  check_target(t, "normal_");
  check_spread(std, "normal_", "std", t);
  copy_(t, randn(t.shape(), t.dtype(), t.device(), gen, mean, std));
}

void zeros_(const Tensor& t) {
  check_target(t, "zeros_");
  fill_(t, 0);
}

void ones_(const Tensor& t) {
  check_target(t, "ones_");
  fill_(t, 1);
}

void xavier_uniform_(const Tensor& t, double gain, Generator& gen) {
  check_target(t, "xavier_uniform_");
  check_spread(gain, "xavier_uniform_", "gain", t);
  auto [fan_in, fan_out] = fan_in_and_fan_out(t);
  if (t.numel() == 0) return;
  const double bound = gain * std::sqrt(6.0 / static_cast<double>(fan_in + fan_out));
  uniform_(t, -bound, bound, gen);
}

void xavier_normal_(const Tensor& t, double gain, Generator& gen) {
  check_target(t, "xavier_normal_");
  check_spread(gain, "xavier_normal_", "gain", t);
  auto [fan_in, fan_out] = fan_in_and_fan_out(t);
  if (t.numel() == 0) return;
  normal_(t, 0, gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out)), gen);
}

namespace {
double kaiming_std(const Tensor& t, double a, FanMode mode, Nonlinearity nonlinearity) {
  auto [fan_in, fan_out] = fan_in_and_fan_out(t);
  const int64_t fan = mode == FanMode::fan_in ? fan_in : fan_out;
  if (fan == 0) return 0;  // an empty tensor: nothing is drawn
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

void kaiming_uniform_(const Tensor& t, double a, FanMode mode, Nonlinearity nonlinearity, Generator& gen) {
  check_target(t, "kaiming_uniform_");
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nonlinearity);
  uniform_(t, -bound, bound, gen);
}

void kaiming_normal_(const Tensor& t, double a, FanMode mode, Nonlinearity nonlinearity, Generator& gen) {
  check_target(t, "kaiming_normal_");
  normal_(t, 0, kaiming_std(t, a, mode, nonlinearity), gen);
}

}  // namespace tg::nn::init
