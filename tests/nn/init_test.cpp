#include <cmath>

#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;
namespace init = tg::nn::init;

namespace {

struct Moments {
  double mean = 0, std = 0, max_abs = 0;
};

Moments moments(const Tensor& t) {
  std::vector<double> v = to_dtype_copy(t, kF64).to_vector<double>();
  Moments m;
  for (double x : v) m.mean += x, m.max_abs = std::max(m.max_abs, std::abs(x));
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.std += (x - m.mean) * (x - m.mean);
  m.std = std::sqrt(m.std / static_cast<double>(v.size()));
  return m;
}

// Five standard errors of the sample std, relative to the std, for n draws of a distribution
// with kurtosis k (uniform 1.8, normal 3): se(s) / sigma = sqrt((k - 1) / (4 n)).
double std_tolerance(int64_t n, double kurtosis) {
  return 5 * std::sqrt((kurtosis - 1) / (4.0 * static_cast<double>(n)));
}

void require_uniform(const Tensor& t, double bound) {
  Moments m = moments(t);
  const int64_t n = t.numel();
  CAPTURE(bound);
  CAPTURE(m.max_abs);
  CHECK(m.max_abs <= bound);
  CHECK(m.max_abs > bound * (1 - 1e-3));  // the range is really used
  CHECK(std::abs(m.std / (bound / std::sqrt(3.0)) - 1) < std_tolerance(n, 1.8));
  CHECK(std::abs(m.mean) < 5 * bound / std::sqrt(3.0 * static_cast<double>(n)));
}

void require_normal(const Tensor& t, double mean, double std) {
  Moments m = moments(t);
  const int64_t n = t.numel();
  CAPTURE(std);
  CAPTURE(m.std);
  CHECK(std::abs(m.std / std - 1) < std_tolerance(n, 3));
  CHECK(std::abs(m.mean - mean) < 5 * std / std::sqrt(static_cast<double>(n)));
}

}  // namespace

TEST_CASE("nn::init: fans and gains as PyTorch computes them") {
  CHECK(init::fan_in_and_fan_out(zeros({3, 5})) == std::pair<int64_t, int64_t>{5, 3});  // Linear(5 -> 3)
  CHECK(init::fan_in_and_fan_out(zeros({4, 3, 2, 2})) == std::pair<int64_t, int64_t>{12, 16});  // conv (out,in,kh,kw)
  CHECK_THROWS_WITH_AS(init::fan_in_and_fan_out(zeros({4})),
                       doctest::Contains("fan_in_and_fan_out: needs a tensor of at least 2 dims"), tg::Error);
  CHECK(init::calculate_gain(init::Nonlinearity::linear) == 1);
  CHECK(init::calculate_gain(init::Nonlinearity::sigmoid) == 1);
  CHECK(init::calculate_gain(init::Nonlinearity::tanh) == doctest::Approx(5.0 / 3));
  CHECK(init::calculate_gain(init::Nonlinearity::relu) == doctest::Approx(std::sqrt(2.0)));
  CHECK(init::calculate_gain(init::Nonlinearity::leaky_relu, 0.2) == doctest::Approx(std::sqrt(2 / 1.04)));
  CHECK(init::calculate_gain(init::Nonlinearity::selu) == 0.75);
}

TEST_CASE("nn::init: Xavier uniform and normal on a 256x256 weight") {
  // fan_in + fan_out = 512: bound = sqrt(6/512) = 0.10825, std = sqrt(2/512) = 0.0625.
  Tensor w = empty({256, 256});
  Generator gen(11);
  init::xavier_uniform_(w, 1, gen);
  require_uniform(w, std::sqrt(6.0 / 512));
  init::xavier_uniform_(w, 2, gen);
  require_uniform(w, 2 * std::sqrt(6.0 / 512));
  init::xavier_normal_(w, 1, gen);
  require_normal(w, 0, 0.0625);
  // Rectangular: fans 128 and 512.
  Tensor r = empty({512, 128}, kF64);
  init::xavier_uniform_(r, 1, gen);
  require_uniform(r, std::sqrt(6.0 / 640));
}

TEST_CASE("nn::init: Kaiming uniform and normal, fan_in and fan_out") {
  Tensor w = empty({128, 512});  // fan_in 512, fan_out 128
  Generator gen(12);
  init::kaiming_uniform_(w, 0, init::FanMode::fan_in, init::Nonlinearity::relu, gen);
  require_uniform(w, std::sqrt(2.0) * std::sqrt(3.0 / 512));
  // PyTorch's nn.Linear default: a = sqrt(5) -> gain sqrt(2/6), bound 1/sqrt(fan_in).
  init::kaiming_uniform_(w, std::sqrt(5.0), init::FanMode::fan_in, init::Nonlinearity::leaky_relu, gen);
  require_uniform(w, 1 / std::sqrt(512.0));
  init::kaiming_normal_(w, 0, init::FanMode::fan_out, init::Nonlinearity::relu, gen);
  require_normal(w, 0, std::sqrt(2.0 / 128));
}

TEST_CASE("nn::init: uniform_, normal_, zeros_, ones_, the generator decides the values") {
  Tensor a = empty({100, 100}), b = empty({100, 100});
  Generator g1(7), g2(7);
  init::uniform_(a, -2, 6, g1);
  init::uniform_(b, -2, 6, g2);
  CHECK(max_abs_diff(a, b) == 0);
  Moments m = moments(a);
  CHECK(std::abs(m.mean - 2) < 5 * 8 / std::sqrt(12.0 * 1e4));
  CHECK(m.max_abs <= 6);
  init::normal_(a, 3, 0.5, g1);
  require_normal(a, 3, 0.5);
  init::uniform_(b, -2, 6, g1);  // g1 has moved on: different values
  CHECK(max_abs_diff(a, b) > 0);
  init::zeros_(a);
  CHECK(moments(a).max_abs == 0);
  init::ones_(a);
  CHECK(moments(a).mean == 1);
  CHECK(moments(a).std == 0);
  // A non-contiguous view is written through its strides; the rest of the storage is untouched.
  Tensor base = zeros({3, 4});
  init::ones_(slice(base, 1, 0, 4, 2));
  require_values(base, {1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0});
}

TEST_CASE("nn::init: errors") {
  CHECK_THROWS_WITH_AS(init::zeros_(zeros({2}, kI64)), doctest::Contains("zeros_"), tg::Error);
  CHECK_THROWS_WITH_AS(init::xavier_uniform_(Tensor()), doctest::Contains("xavier_uniform_"), tg::Error);
  CHECK_THROWS_WITH_AS(init::uniform_(zeros({2}), 1, 0), doctest::Contains("uniform_: needs finite low <= high"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(init::normal_(zeros({2}), 0, -1), doctest::Contains("normal_: std must be finite and >= 0"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(init::kaiming_normal_(zeros({3})), doctest::Contains("at least 2 dims"), tg::Error);
}
