#include "elementwise_test_util.h"
#include "ops/relu/relu.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("relu: hand-worked forward and backward (gradient 0 at x == 0)") {
  Tensor x = tensor({-2, 0, 3, -0.5, 0.25, 1}, {2, 3}, kF64).requires_grad_();
  Tensor y = relu(x);
  require_values(y, {0, 0, 3, 0, 0.25, 1});
  sum(y).backward();
  require_values(x.grad(), {0, 0, 1, 0, 1, 1});
}

TEST_CASE("relu: NaN stays NaN") { CHECK(std::isnan(relu(tensor({NAN})).item())); }

TEST_CASE("gradcheck relu") {
  auto fn = [](const std::vector<Tensor>& in) { return relu(in[0]); };
  // Finite differences straddling the kink would be wrong: keep the inputs away from 0.
  for (const Tensor& x : {rand64({2, 3}, 1), rand64({}, 2), noncontig64({2, 3, 4}, 3)}) {
    require_away_from_zero(x, 1e-3);
    require_gradcheck("relu", fn, {x});
  }
}

TEST_CASE("relu: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return relu(in[0]); }, {noncontig64({3, 4}, 1)});
}

TEST_CASE("relu: errors name the op") { require_unary_errors([](const Tensor& x) { return relu(x); }, "relu"); }

TEST_CASE("relu: CUDA matches CPU (forward and backward)") {
  // require_unary_cuda_matches_cpu gradchecks noncontig64({2, 3}, 6) and rand64({3, 1}, 7):
  // checked here, on every machine, to stay away from the kink at 0.
  require_away_from_zero(noncontig64({2, 3}, 6), 1e-3);
  require_away_from_zero(rand64({3, 1}, 7), 1e-3);
  if (!gpu_available_or_skip()) return;
  require_unary_cuda_matches_cpu("relu", [](const Tensor& x) { return relu(x); });
  // NaN stays NaN, -0 and +0 give 0, on both devices.
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return relu(in[0]); },
                           {tensor({NAN, -0.0, 0, 2}, {4}, kF64)});
}
