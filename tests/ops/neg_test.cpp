#include "elementwise_test_util.h"
#include "ops/neg/neg.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("neg: hand-worked forward and backward") {
  Tensor x = tensor({1, -2, 0, 3.5}, {2, 2}, kF64).requires_grad_();
  Tensor y = -x;
  require_values(y, {-1, 2, 0, -3.5});
  sum(y).backward();
  require_values(x.grad(), {-1, -1, -1, -1});
}

TEST_CASE("gradcheck neg") {
  auto fn = [](const std::vector<Tensor>& in) { return neg(in[0]); };
  require_gradcheck("neg", fn, {rand64({2, 3}, 1)});
  require_gradcheck("neg", fn, {rand64({}, 2)});
  require_gradcheck("neg", fn, {noncontig64({2, 3, 4}, 3)});
}

TEST_CASE("neg: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return -in[0]; }, {noncontig64({3, 4}, 1)});
}

TEST_CASE("neg: errors name the op") { require_unary_errors([](const Tensor& x) { return neg(x); }, "neg"); }

TEST_CASE("neg: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("neg", [](const Tensor& x) { return neg(x); });
}
