#include "elementwise_test_util.h"
#include "ops/pow/pow.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("pow: hand-worked forward and backward") {
  Tensor x = tensor({-3, 0.5, 2}, {3}, kF64).requires_grad_();
  Tensor y = pow(x, 3);
  require_values(y, {-27, 0.125, 8});
  sum(y).backward();
  require_values(x.grad(), {27, 0.75, 12});  // 3 x^2
  require_values(pow(tensor({4, 0.25}), 0.5), {2, 0.5});
  require_values(pow(tensor({4, -0.5}), -1), {0.25, -2});
}

TEST_CASE("pow: p = 0 gives ones and a zero gradient, also at x = 0") {
  Tensor x = tensor({0, -2, 5}, {3}, kF64).requires_grad_();
  Tensor y = pow(x, 0);
  require_values(y, {1, 1, 1});
  sum(y).backward();
  require_values(x.grad(), {0, 0, 0});
}

TEST_CASE("pow: a negative base with a non-integer exponent gives NaN without throwing") {
  CHECK(std::isnan(pow(tensor({-4}), 0.5).item()));
  require_values(pow(tensor({-2}), 2), {4});  // integer exponents are fine
  AnomalyGuard anomaly;
  CHECK_THROWS_WITH_AS(pow(tensor({-4}), 0.5), doctest::Contains("pow: anomaly"), tg::Error);
}

TEST_CASE("pow: the exponent is on the tape") {
  Tensor y = pow(rand64({2}, 1), 2.5);
  CHECK(y.producer()->str().find("p=2.5") != std::string::npos);
}

TEST_CASE("gradcheck pow") {
  auto pow_by = [](double p) { return [p](const std::vector<Tensor>& in) { return pow(in[0], p); }; };
  require_gradcheck("pow", pow_by(3), {rand64({2, 3}, 1)});
  require_gradcheck("pow", pow_by(2), {noncontig64({2, 3, 4}, 2)});
  require_gradcheck("pow", pow_by(0.5), {rand64({2, 3}, 3, 0.5, 2)});
  require_gradcheck("pow", pow_by(-1.5), {noncontig64({3, 2}, 4, 0.5, 2)});
  require_gradcheck("pow", pow_by(1), {rand64({}, 5)});
}

TEST_CASE("pow: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return pow(in[0], 2.5); },
                           {noncontig64({3, 4}, 1, 0.5, 2)});
}

TEST_CASE("pow: errors name the op") { require_unary_errors([](const Tensor& x) { return pow(x, 2); }, "pow"); }

TEST_CASE("pow: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("pow", [](const Tensor& x) { return pow(x, 3); });
  require_unary_cuda_matches_cpu("pow", [](const Tensor& x) { return pow(x, 2.5); }, 0.5, 2);
  require_unary_cuda_matches_cpu("pow", [](const Tensor& x) { return pow(x, -1.5); }, 0.5, 2);
  // p = 0: ones and a zero gradient, also at x = 0; a negative base with p = 0.5 gives NaN.
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return pow(in[0], 0); },
                           {tensor({0, -2, 5}, {3}, kF64).requires_grad_()});
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return pow(in[0], 0.5); },
                           {tensor({-4, 4}, {2}, kF64)});
}
