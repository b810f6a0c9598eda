#include <cmath>
#include <limits>
#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "elementwise_test_util.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/relu_dropout/relu_dropout.h"
#include "ops/relu/relu.h"

using namespace tg;
using namespace tg::test;

namespace {

// relu then dropout as two ops, drawing from a generator in the state relu_dropout starts from.
Tensor composed(const Tensor& x, double p, uint64_t seed, uint64_t offset) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  return dropout(relu(x), p, true, gen);
}

Tensor fused(const Tensor& x, double p, uint64_t seed, uint64_t offset) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  return relu_dropout(x, p, true, gen);
}

}  // namespace

TEST_CASE("relu_dropout: hand-worked forward and backward, mask from the draw rule and x > 0") {
  // p = 0.5: a kept element is scaled by 2; element i is kept when dropout_uniform_at(42, 0, i, 0.5) > 0.5,
  // and has a gradient when it is also positive (relu's gradient at 0 is 0).
  Tensor x = tensor({1, -2, 3, 0, 10, -7, 2, 8, -6}, {3, 3}, kF64).requires_grad_();
  Generator gen(42);
  Tensor y = relu_dropout(x, 0.5, true, gen);
  CHECK(gen.offset() == dropout_counters(9, 0.5));  // as dropout
  CHECK(y.producer()->op == "relu_dropout");
  CHECK(y.producer()->str().find("saved: keep") != std::string::npos);
  const std::vector<double> xv = x.to_vector<double>();
  std::vector<double> expected(9), expected_dx(9);
  int kept_positive = 0, kept_negative = 0;
  for (uint64_t i = 0; i < 9; ++i) {
    const bool kept = dropout_uniform_at(42, 0, i, 0.5) > 0.5;
    kept_positive += kept && xv[i] > 0;
    kept_negative += kept && xv[i] < 0;
    expected[i] = kept ? 2 * std::max(xv[i], 0.0) : 0;
    expected_dx[i] = kept && xv[i] > 0 ? 2 * 0.25 : 0;  // grad 0.25 everywhere
  }
  CHECK(kept_positive > 0);  // the draw exercises both masks
  CHECK(kept_negative > 0);
  require_values(y, expected, 1e-12);
  y.backward(full({3, 3}, 0.25, kF64));
  require_values(x.grad(), expected_dx, 1e-12);
}

TEST_CASE("relu_dropout: the values, gradients and draws of relu then dropout, exactly") {
  // float32 over several chunks of the vectorised kernel with a ragged end, float64, and a
  // non-contiguous input; NaN, infinities and signed zeros among the values
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype_name(dtype));
    for (const Tensor& x : {rand64({3, 2049}, 1), noncontig64({5, 7}, 2),
                            tensor({NAN, -NAN, INFINITY, -INFINITY, -0.0, 0.0, 1, -1}, {8}, kF64)}) {
      Tensor a = copy_keeping_strides(x.detach(), dtype, kCPU).requires_grad_();
      Tensor b = copy_keeping_strides(x.detach(), dtype, kCPU).requires_grad_();
      Tensor ya = composed(a, 0.3, 5, 9), yb = fused(b, 0.3, 5, 9);
      require_close(yb, ya, 0, 0);  // NaN where relu keeps NaN, on both sides
      Tensor g = to_dtype_copy(rand64(x.shape(), 3).detach(), dtype);
      ya.backward(g);
      yb.backward(g);
      require_close(b.grad(), a.grad(), 0, 0);
    }
  }
  Generator one(8), other(8);
  relu_dropout(rand64({10}, 4), 0.2, true, one);
  dropout(relu(rand64({10}, 4)), 0.2, true, other);
  CHECK(one.offset() == other.offset());
}

TEST_CASE("relu_dropout: eval mode and p = 0 are relu, p = 1 gives zeros and zero gradient") {
  Tensor x = tensor({1, -2, 3, -4}, {2, 2}, kF64).requires_grad_();
  Generator gen(1);
  for (Tensor y : {relu_dropout(x, 0.5, false, gen), relu_dropout(x, 0, true, gen)}) {
    CHECK(y.producer()->op == "relu");
    require_values(y, {1, 0, 3, 0});
  }
  CHECK(gen.offset() == 0);  // nothing was drawn
  Tensor y = relu_dropout(x, 1, true, gen);
  require_values(y, {0, 0, 0, 0});
  y.backward(full({2, 2}, 3.0, kF64));
  require_values(x.grad(), {0, 0, 0, 0});
}

TEST_CASE("gradcheck relu_dropout") {
  // The same generator state at every evaluation, so every evaluation draws the same mask;
  // finite differences straddling relu's kink would be wrong: inputs away from 0.
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);
    return relu_dropout(in[0], 0.4, true, gen);
  };
  for (const Tensor& x : {rand64({2, 3}, 1), rand64({4, 5, 3}, 2), noncontig64({3, 4}, 3)}) {
    require_away_from_zero(x, 1e-3);
    require_gradcheck("relu_dropout", fn, {x});
  }
}

TEST_CASE("relu_dropout: errors name the op and p") {
  CHECK_THROWS_WITH_AS(relu_dropout(ones({2, 3}), 1.5, true),
                       "relu_dropout: p must be in [0, 1], got 1.5 (x (2,3) float32)", Error);
  CHECK_THROWS_WITH_AS(relu_dropout(ones({2}), NAN, true), doctest::Contains("relu_dropout: p must be in [0, 1]"),
                       Error);
  CHECK_THROWS_WITH_AS(relu_dropout(tensor_i64({1, 2}), 0.5, true), doctest::Contains("relu_dropout"), Error);
  CHECK_THROWS_WITH_AS(relu_dropout(Tensor(), 0.5, true), doctest::Contains("relu_dropout"), Error);
}

TEST_CASE("relu_dropout: CUDA matches CPU (forward and backward)") {
  // require_cuda_matches_cpu_with_grads gradchecks its inputs on the GPU: away from relu's kink
  const std::vector<Tensor> inputs{rand64({4, 5, 3}, 2), noncontig64({3, 4}, 3)};
  for (const Tensor& x : inputs) require_away_from_zero(x, 1e-3);
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(8);
    return relu_dropout(in[0], 0.4, true, gen);
  };
  require_cuda_matches_cpu_with_grads("relu_dropout p 0.4 (4,5,3)", fn, {inputs[0]});
  require_cuda_matches_cpu_with_grads("relu_dropout p 0.4 non-contiguous (3,4)", fn, {inputs[1]});
  // The same values bit for bit, NaN and signed zeros included, for a seed on both devices.
  const Device gpu = Device::cuda();
  for (DType dtype : {kF32, kF64}) {
    Tensor x = to_dtype_copy(tensor({NAN, -0.0, 0.0, 2, -3, 5, 1, -1, 7}, {9}, kF64), dtype);
    Tensor on_cpu = fused(x, 0.3, 3, 17), on_gpu = fused(to_device_copy(x, gpu), 0.3, 3, 17);
    REQUIRE(on_gpu.is_cuda());
    require_close(to_device_copy(on_gpu, kCPU), on_cpu, 0, 0);
  }
}
