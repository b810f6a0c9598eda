#include "elementwise_test_util.h"
#include "ops/sqrt/sqrt.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("sqrt: hand-worked forward and backward") {
  // sqrt of 4, 0.25, 9; the gradient 1/(2 sqrt(x)) is 1/4, 1, 1/6.
  Tensor x = tensor({4, 0.25, 9}, {3}, kF64).requires_grad_();
  Tensor y = sqrt(x);
  require_values(y, {2, 0.5, 3}, 1e-12);
  sum(y).backward();
  require_values(x.grad(), {0.25, 1, 1.0 / 6}, 1e-12);
}

TEST_CASE("sqrt: a negative input gives NaN without throwing, anomaly mode reports it") {
  CHECK(std::isnan(sqrt(tensor({-1})).item()));
  AnomalyGuard anomaly;
  CHECK_THROWS_WITH_AS(sqrt(tensor({4, -1})), doctest::Contains("sqrt: anomaly"), tg::Error);
}

TEST_CASE("gradcheck sqrt") {
  auto fn = [](const std::vector<Tensor>& in) { return sqrt(in[0]); };
  require_gradcheck("sqrt", fn, {rand64({2, 3}, 1, 0.5, 2)});
  require_gradcheck("sqrt", fn, {rand64({}, 2, 0.5, 2)});
  require_gradcheck("sqrt", fn, {noncontig64({2, 3, 4}, 3, 0.5, 2)});
}

TEST_CASE("sqrt: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return sqrt(in[0]); },
                           {noncontig64({3, 4}, 1, 0.5, 2)});
}

TEST_CASE("sqrt: errors name the op") { require_unary_errors([](const Tensor& x) { return sqrt(x); }, "sqrt"); }

TEST_CASE("sqrt: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("sqrt", [](const Tensor& x) { return sqrt(x); }, 0.5, 2);
  // A negative input gives NaN on both devices.
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return sqrt(in[0]); },
                           {tensor({-1, 0, 4}, {3}, kF64)});
}
