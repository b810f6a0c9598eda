#include "elementwise_test_util.h"
#include "ops/tanh/tanh.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("tanh: hand-worked forward and backward") {
  // tanh(x) = (e^2x - 1) / (e^2x + 1): tanh(0) = 0, tanh(ln 2) = 3/5, tanh(-ln 2) = -3/5;
  // the gradient 1 - tanh^2 is 1, 16/25, 16/25.
  Tensor x = tensor({0, std::log(2.0), -std::log(2.0)}, {3}, kF64).requires_grad_();
  Tensor y = tanh(x);
  require_values(y, {0, 0.6, -0.6}, 1e-12);
  sum(y).backward();
  require_values(x.grad(), {1, 0.64, 0.64}, 1e-12);
  require_values(tanh(tensor({-100, 100})), {-1, 1});
}

TEST_CASE("gradcheck tanh") {
  auto fn = [](const std::vector<Tensor>& in) { return tanh(in[0]); };
  require_gradcheck("tanh", fn, {rand64({2, 3}, 1, -3, 3)});
  require_gradcheck("tanh", fn, {rand64({}, 2)});
  require_gradcheck("tanh", fn, {noncontig64({2, 3, 4}, 3)});
}

TEST_CASE("tanh: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return tanh(in[0]); }, {noncontig64({3, 4}, 1)});
}

TEST_CASE("tanh: errors name the op") { require_unary_errors([](const Tensor& x) { return tanh(x); }, "tanh"); }

TEST_CASE("tanh: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("tanh", [](const Tensor& x) { return tanh(x); }, -3, 3);
}
