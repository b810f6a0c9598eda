#include "elementwise_test_util.h"
#include "ops/sigmoid/sigmoid.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("sigmoid: hand-worked forward and backward") {
  // 1/(1+e^-x): x = 0 -> 1/2, x = ln 3 -> 1/(1+1/3) = 3/4, x = -ln 3 -> 1/4;
  // the gradient y (1 - y) is 1/4, 3/16, 3/16.
  Tensor x = tensor({0, std::log(3.0), -std::log(3.0)}, {3}, kF64).requires_grad_();
  Tensor y = sigmoid(x);
  require_values(y, {0.5, 0.75, 0.25}, 1e-12);
  sum(y).backward();
  require_values(x.grad(), {0.25, 0.1875, 0.1875}, 1e-12);
}

TEST_CASE("sigmoid: large inputs saturate without NaN") {
  require_values(sigmoid(tensor({-1000, 1000})), {0, 1});
  require_values(sigmoid(tensor({-1000, 1000}, {2}, kF64)), {0, 1});
}

TEST_CASE("gradcheck sigmoid") {
  auto fn = [](const std::vector<Tensor>& in) { return sigmoid(in[0]); };
  require_gradcheck("sigmoid", fn, {rand64({2, 3}, 1, -4, 4)});
  require_gradcheck("sigmoid", fn, {rand64({}, 2)});
  require_gradcheck("sigmoid", fn, {noncontig64({2, 3, 4}, 3)});
}

TEST_CASE("sigmoid: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return sigmoid(in[0]); }, {noncontig64({3, 4}, 1)});
}

TEST_CASE("sigmoid: errors name the op") {
  require_unary_errors([](const Tensor& x) { return sigmoid(x); }, "sigmoid");
}

TEST_CASE("sigmoid: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("sigmoid", [](const Tensor& x) { return sigmoid(x); }, -4, 4);
  // Large inputs saturate without NaN on both devices.
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return sigmoid(in[0]); },
                           {tensor({-1000, 1000, 0}, {3}, kF64)});
}
