#include <algorithm>
#include <cmath>
#include <vector>

#include "core/numerics.h"
#include "elementwise_test_util.h"
#include "ops/common/vec_math.h"
#include "ops/gelu/gelu.h"
#include "ops/gelu/gelu_math.h"

using namespace tg;
using namespace tg::test;

// Standard normal table: Phi(1) = 0.8413447461, Phi(2) = 0.9772498681,
// phi(1) = 0.2419707245, phi(2) = 0.0539909665, and Phi(-x) = 1 - Phi(x).
TEST_CASE("gelu: hand-worked forward and backward, erf form") {
  Tensor x = tensor({-1, 0, 1, 2}, {4}, kF64).requires_grad_();
  Tensor y = gelu(x);
  // x Phi(x): -(1 - 0.8413447461), 0, 0.8413447461, 2 * 0.9772498681
  require_values(y, {-0.1586552539, 0, 0.8413447461, 1.9544997361}, 1e-9);
  sum(y).backward();
  // Phi(x) + x phi(x): 0.1586552539 - 0.2419707245, 0.5, 0.8413447461 + 0.2419707245,
  // 0.9772498681 + 2 * 0.0539909665
  require_values(x.grad(), {-0.0833154706, 0.5, 1.0833154706, 1.0852318011}, 1e-9);
}

TEST_CASE("gelu: hand-worked forward and backward, tanh form") {
  // x = 1: u = sqrt(2/pi) * 1.044715 = 0.8335620, t = tanh(u) = 0.6823840,
  //   out = 0.5 (1 + t) = 0.8411920,
  //   dx = 0.5 (1 + t) + 0.5 (1 - t^2) * sqrt(2/pi) * (1 + 3 * 0.044715) = 0.8411920 + 0.2417721
  Tensor x = tensor({0, 1}, {2}, kF64).requires_grad_();
  Tensor y = gelu(x, GeluApprox::tanh);
  require_values(y, {0, 0.8411920}, 1e-7);
  sum(y).backward();
  require_values(x.grad(), {0.5, 1.0829641}, 1e-7);
  CHECK(y.producer()->str().find("approx=tanh") != std::string::npos);
}

TEST_CASE("gelu: the tanh form stays within 1e-3 of the erf form") {
  Tensor x = arange(-4, 4, 0.25, kF64);
  require_close(gelu(x, GeluApprox::tanh), gelu(x), 1e-3, 0);
}

TEST_CASE("gradcheck gelu") {
  for (GeluApprox approx : {GeluApprox::none, GeluApprox::tanh}) {
    auto fn = [approx](const std::vector<Tensor>& in) { return gelu(in[0], approx); };
    require_gradcheck("gelu", fn, {rand64({2, 3}, 1, -3, 3)});
    require_gradcheck("gelu", fn, {rand64({}, 2)});
    require_gradcheck("gelu", fn, {noncontig64({2, 3, 4}, 3)});
  }
}

TEST_CASE("gelu: float32 matches float64") {
  for (GeluApprox approx : {GeluApprox::none, GeluApprox::tanh})
    require_f32_matches_f64([approx](const std::vector<Tensor>& in) { return gelu(in[0], approx); },
                             {noncontig64({3, 4}, 1, -3, 3)});
}

TEST_CASE("gelu: erf_vec, the float32 fast path's erf, is within 4e-7 of std::erf") {
  double worst = 0, at = 0;
  for (int i = -100000; i <= 100000; ++i) {
    const float x = static_cast<float>(i) * 1e-4f;  // [-10, 10]
    const double error = std::abs(static_cast<double>(erf_vec(x)) - std::erf(static_cast<double>(x)));
    if (error > worst) worst = error, at = x;
  }
  INFO("worst error ", worst, " at x = ", at);
  CHECK(worst < 4e-7);  // Abramowitz-Stegun's 1.5e-7 plus float rounding (3.2e-7 at 0.51)
  CHECK(erf_vec(INFINITY) == 1.0f);
  CHECK(erf_vec(-INFINITY) == -1.0f);
  CHECK(std::isnan(erf_vec(NAN)));
}

TEST_CASE("gelu: erf_polynomial, numerics 2's erf, is within 2 ulps of erf") {
  // Every 61st float from 0 to 5 (about 18 million: each piece, its ends and the constant tail),
  // both signs; bench/gelu_accuracy.cpp checks every float.
  int64_t worst = 0;
  float at = 0;
  for (uint32_t bits = 0; bits <= bit_cast<uint32_t>(5.0f); bits += 61) {
    for (const float x : {bit_cast<float>(bits), -bit_cast<float>(bits)}) {
      const float exact = static_cast<float>(std::erf(static_cast<double>(x)));
      const int64_t ulps = ulps_between(erf_polynomial(x), exact);
      if (ulps > worst) worst = ulps, at = x;
    }
  }
  INFO("worst ", worst, " ulps at x = ", at);
  CHECK(worst <= 2);
  CHECK(erf_polynomial(0.0f) == 0.0f);
  CHECK(std::signbit(erf_polynomial(-0.0f)));
  CHECK(erf_polynomial(3.9f) == 1.0f);
  CHECK(erf_polynomial(INFINITY) == 1.0f);
  CHECK(erf_polynomial(-INFINITY) == -1.0f);
  CHECK(std::isnan(erf_polynomial(NAN)));
}

TEST_CASE("gelu: the float32 kernel's gelu' is within 2e-7 (numerics 2) and 3e-7 (numerics 1) of gelu'") {
  // gelu_backward_cpu with dout = 1 on every 61st float from 0 to 7 (each polynomial piece, its
  // ends and the constant tails), both signs; bench/gelu_accuracy.cpp checks every float.
  std::vector<float> xs;
  for (uint32_t bits = 0; bits <= bit_cast<uint32_t>(7.0f); bits += 61)
    xs.insert(xs.end(), {bit_cast<float>(bits), -bit_cast<float>(bits)});
  const int64_t n = static_cast<int64_t>(xs.size());
  const Tensor x = empty({n}, kF32), ones = full({n}, 1.0, kF32), dx = empty({n}, kF32);
  std::copy(xs.begin(), xs.end(), x.data<float>());
  for (const auto& version_and_bound : {std::pair{int64_t{1}, 3e-7}, std::pair{int64_t{2}, 2e-7}}) {
    const int64_t version = version_and_bound.first;  // not a structured binding: CAPTURE's lambda cannot take one
    const double bound = version_and_bound.second;
    CAPTURE(version);
    gelu_backward_cpu(dx, ones, x, GeluApprox::none, version);
    double worst = 0, at = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double exact = gelu_math::erf_backward<double>(1.0, xs[i]);  // gelu'(x) in double, with libm
      const double error = std::abs(dx.data<float>()[i] - exact);
      if (error > worst) worst = error, at = xs[i];
    }
    INFO("worst error ", worst, " at x = ", at);
    CHECK(worst < bound);
  }
}

TEST_CASE("gelu: the float32 fast path (contiguous, erf form) matches float64 in every numerics version") {
  for (int64_t version = kFirstNumerics; version <= kLatestNumerics; ++version) {
    CAPTURE(version);
    const NumericsGuard numerics(version);
    // 5000 elements over [-6, 6]: several chunks, and the tails of the vector loops.
    const Tensor x64 = rand64({5000}, 7, -6, 6).detach();
    Tensor x32 = to_dtype_copy(x64, kF32), x = to_dtype_copy(x64, kF64);
    x32.requires_grad_();
    x.requires_grad_();
    const Tensor y32 = gelu(x32), y64 = gelu(x);
    require_close(y32, y64, 1e-6, 1e-6);
    const Tensor g64 = rand64({5000}, 8).detach();
    y32.backward(to_dtype_copy(g64, kF32));
    y64.backward(g64);
    require_close(x32.grad(), x.grad(), 1e-6, 1e-6);
  }
}

TEST_CASE("gelu: rounds in the numerics version it is called in, and its gradient as its forward did") {
  const Tensor x = to_dtype_copy(rand64({5000}, 9, -6, 6), kF32), g = to_dtype_copy(rand64({5000}, 10), kF32);
  // out, dx with the whole pass in `version`; and with the forward alone in it (dx then differs
  // from `version`'s in no element)
  const auto pass = [&](int64_t version, bool backward_too) {
    Tensor leaf = x.detach().requires_grad_();
    Tensor out;
    {
      const NumericsGuard forward(version);
      out = gelu(leaf);
    }
    const NumericsGuard backward(backward_too ? version : kFirstNumerics + kLatestNumerics - version);
    out.backward(g);
    return std::pair{out.detach(), leaf.grad()};
  };
  const auto [out1, dx1] = pass(1, true);
  const auto [out2, dx2] = pass(2, true);
  CHECK(out1.to_vector<float>() != out2.to_vector<float>());  // the versions round differently
  CHECK(dx1.to_vector<float>() != dx2.to_vector<float>());
  require_close(pass(1, false).second, dx1, 0, 0);  // bit for bit
  require_close(pass(2, false).second, dx2, 0, 0);
}

TEST_CASE("gelu: errors name the op") {
  require_unary_errors([](const Tensor& x) { return gelu(x); }, "gelu");
  require_unary_errors([](const Tensor& x) { return gelu(x, GeluApprox::tanh); }, "gelu");
}

TEST_CASE("gelu: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("gelu", [](const Tensor& x) { return gelu(x); }, -3, 3);
  require_unary_cuda_matches_cpu("gelu", [](const Tensor& x) { return gelu(x, GeluApprox::tanh); }, -3, 3);
}
