#include <cmath>

#include "elementwise_test_util.h"
#include "ops/common/vec_math.h"
#include "ops/gelu/gelu.h"

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

TEST_CASE("gelu: the float32 fast path (contiguous, erf form) matches float64") {
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

TEST_CASE("gelu: errors name the op") {
  require_unary_errors([](const Tensor& x) { return gelu(x); }, "gelu");
  require_unary_errors([](const Tensor& x) { return gelu(x, GeluApprox::tanh); }, "gelu");
}

TEST_CASE("gelu: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("gelu", [](const Tensor& x) { return gelu(x); }, -3, 3);
  require_unary_cuda_matches_cpu("gelu", [](const Tensor& x) { return gelu(x, GeluApprox::tanh); }, -3, 3);
}
