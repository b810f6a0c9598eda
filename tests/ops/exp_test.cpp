#include "elementwise_test_util.h"
#include "ops/exp/exp.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("exp: hand-worked forward and backward") {
  // e^0 = 1, e^(ln 2) = 2, e^(-ln 4) = 1/4; the gradient is the output itself.
  Tensor x = tensor({0, std::log(2.0), -std::log(4.0)}, {3}, kF64).requires_grad_();
  Tensor y = exp(x);
  require_values(y, {1, 2, 0.25}, 1e-12);
  sum(y).backward();
  require_values(x.grad(), {1, 2, 0.25}, 1e-12);
}

TEST_CASE("gradcheck exp") {
  auto fn = [](const std::vector<Tensor>& in) { return exp(in[0]); };
  require_gradcheck("exp", fn, {rand64({2, 3}, 1)});
  require_gradcheck("exp", fn, {rand64({}, 2)});
  require_gradcheck("exp", fn, {noncontig64({2, 3, 4}, 3)});
}

TEST_CASE("exp: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return exp(in[0]); }, {noncontig64({3, 4}, 1)});
}

TEST_CASE("exp: errors name the op") { require_unary_errors([](const Tensor& x) { return exp(x); }, "exp"); }

TEST_CASE("exp: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("exp", [](const Tensor& x) { return exp(x); });
}
