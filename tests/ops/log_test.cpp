#include "elementwise_test_util.h"
#include "ops/log/log.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("log: hand-worked forward and backward") {
  // ln 1 = 0, ln e = 1, ln(1/4) = -2 ln 2; the gradient is 1/x.
  Tensor x = tensor({1, std::exp(1.0), 0.25}, {3}, kF64).requires_grad_();
  Tensor y = log(x);
  require_values(y, {0, 1, -2 * std::log(2.0)}, 1e-12);
  sum(y).backward();
  require_values(x.grad(), {1, std::exp(-1.0), 4}, 1e-12);
}

TEST_CASE("log: 0 gives -Inf and a negative input NaN, without throwing, anomaly mode reports them") {
  std::vector<float> y = log(tensor({0, -1})).to_vector<float>();
  CHECK(std::isinf(y[0]));
  CHECK(y[0] < 0);
  CHECK(std::isnan(y[1]));
  AnomalyGuard anomaly;
  CHECK_THROWS_WITH_AS(log(tensor({1, -1})), doctest::Contains("log: anomaly"), tg::Error);
}

TEST_CASE("gradcheck log") {
  auto fn = [](const std::vector<Tensor>& in) { return log(in[0]); };
  require_gradcheck("log", fn, {rand64({2, 3}, 1, 0.5, 2)});
  require_gradcheck("log", fn, {rand64({}, 2, 0.5, 2)});
  require_gradcheck("log", fn, {noncontig64({2, 3, 4}, 3, 0.5, 2)});
}

TEST_CASE("log: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return log(in[0]); },
                           {noncontig64({3, 4}, 1, 0.5, 2)});
}

TEST_CASE("log: errors name the op") { require_unary_errors([](const Tensor& x) { return log(x); }, "log"); }

TEST_CASE("log: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("log", [](const Tensor& x) { return log(x); }, 0.5, 2);
  // 0 gives -Inf and a negative input NaN on both devices.
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return log(in[0]); },
                           {tensor({0, -1, 1}, {3}, kF64)});
}
