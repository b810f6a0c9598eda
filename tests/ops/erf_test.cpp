#include "elementwise_test_util.h"
#include "ops/erf/erf.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("erf: hand-worked forward and backward") {
  // erf(0) = 0, erf(1) = 0.8427007929, erf(-x) = -erf(x);
  // erf'(x) = 2/sqrt(pi) e^(-x^2): 1.1283791671 at 0, 0.4151074974 at +-1
  Tensor x = tensor({0, 1, -1}, {3}, kF64).requires_grad_();
  Tensor y = erf(x);
  require_values(y, {0, 0.8427007929, -0.8427007929}, 1e-9);
  sum(y).backward();
  require_values(x.grad(), {1.1283791671, 0.4151074974, 0.4151074974}, 1e-9);
}

TEST_CASE("gradcheck erf") {
  auto fn = [](const std::vector<Tensor>& in) { return erf(in[0]); };
  require_gradcheck("erf", fn, {rand64({2, 3}, 1, -2, 2)});
  require_gradcheck("erf", fn, {rand64({}, 2)});
  require_gradcheck("erf", fn, {noncontig64({2, 3, 4}, 3)});
}

TEST_CASE("erf: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return erf(in[0]); }, {noncontig64({3, 4}, 1, -2, 2)});
}

TEST_CASE("erf: errors name the op") { require_unary_errors([](const Tensor& x) { return erf(x); }, "erf"); }

TEST_CASE("erf: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("erf", [](const Tensor& x) { return erf(x); }, -2, 2);
}
