#include <cmath>
#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "elementwise_test_util.h"
#include "ops/add/add.h"
#include "ops/dropout/dropout.h"
#include "ops/fused/dropout_add/dropout_add.h"

using namespace tg;
using namespace tg::test;

namespace {

// dropout then add as two ops, drawing from a generator in the state dropout_add starts from.
Tensor dropout_then_add(const Tensor& residual, const Tensor& x, double p, uint64_t seed, uint64_t offset) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  return add(residual, dropout(x, p, true, gen));
}

Tensor dropout_add_from(const Tensor& residual, const Tensor& x, double p, uint64_t seed, uint64_t offset) {
  Generator gen(seed);
  gen.set_state(seed, offset);
  return dropout_add(residual, x, p, true, gen);
}

}  // namespace

TEST_CASE("dropout_add: hand-worked forward and backward, mask from the draw rule") {
  // p = 0.5: a kept element of x is scaled by 2 and added to the residual; a dropped one leaves
  // the residual alone. Element i is kept when dropout_uniform_at(42, 0, i, 0.5) > 0.5.
  Tensor residual = tensor({10, 20, 30, 40, 50, 60, 70, 80, 90}, {3, 3}, kF64).requires_grad_();
  Tensor x = tensor({1, -2, 3, 0.5, 10, -7, 2, 8, -6}, {3, 3}, kF64).requires_grad_();
  Generator gen(42);
  Tensor y = dropout_add(residual, x, 0.5, true, gen);
  CHECK(gen.offset() == dropout_counters(9, 0.5));  // as dropout
  CHECK(y.producer()->op == "dropout_add");
  CHECK(y.producer()->str().find("saved: keep") != std::string::npos);
  const std::vector<double> xv = x.to_vector<double>(), rv = residual.to_vector<double>();
  std::vector<double> expected(9), expected_dx(9);
  int kept = 0;
  for (uint64_t i = 0; i < 9; ++i) {
    const bool k = dropout_uniform_at(42, 0, i, 0.5) > 0.5;
    kept += k;
    expected[i] = rv[i] + (k ? 2 * xv[i] : 0);
    expected_dx[i] = k ? 2 * 0.25 : 0;  // grad 0.25 everywhere
  }
  CHECK(kept > 0);  // the draw keeps some and drops some
  CHECK(kept < 9);
  require_values(y, expected, 1e-12);
  y.backward(full({3, 3}, 0.25, kF64));
  require_values(x.grad(), expected_dx, 1e-12);
  require_values(residual.grad(), std::vector<double>(9, 0.25), 0);
}

TEST_CASE("dropout_add: the values, gradients and draws of dropout then add, exactly") {
  // float32 over several chunks of the vectorised kernel with a ragged end, float64, and
  // non-contiguous inputs; NaN, infinities and signed zeros among the values
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype_name(dtype));
    for (const auto& [r, x] : std::vector<std::pair<Tensor, Tensor>>{
             {rand64({3, 2049}, 1), rand64({3, 2049}, 2)},
             {noncontig64({5, 7}, 3), noncontig64({5, 7}, 4)},
             {tensor({NAN, -0.0, 0.0, -0.0, INFINITY, 1, -1, 0.0}, {8}, kF64),
              tensor({1, -0.0, -0.0, 0.0, -INFINITY, NAN, 1, -0.0}, {8}, kF64)}}) {
      Tensor ra = copy_keeping_strides(r.detach(), dtype, kCPU).requires_grad_();
      Tensor xa = copy_keeping_strides(x.detach(), dtype, kCPU).requires_grad_();
      Tensor rb = copy_keeping_strides(r.detach(), dtype, kCPU).requires_grad_();
      Tensor xb = copy_keeping_strides(x.detach(), dtype, kCPU).requires_grad_();
      Tensor ya = dropout_then_add(ra, xa, 0.3, 5, 9), yb = dropout_add_from(rb, xb, 0.3, 5, 9);
      require_close(yb, ya, 0, 0);
      Tensor g = to_dtype_copy(rand64(x.shape(), 6).detach(), dtype);
      ya.backward(g);
      yb.backward(g);
      require_close(xb.grad(), xa.grad(), 0, 0);
      require_close(rb.grad(), ra.grad(), 0, 0);
    }
  }
  Generator one(8), other(8);
  dropout_add(rand64({10}, 4), rand64({10}, 5), 0.2, true, one);
  dropout(rand64({10}, 5), 0.2, true, other);
  CHECK(one.offset() == other.offset());
}

TEST_CASE("dropout_add: eval mode and p = 0 are add, p = 1 gives the residual and zero gradient for x") {
  Tensor residual = tensor({1, 2, 3, 4}, {2, 2}, kF64).requires_grad_();
  Tensor x = tensor({10, -20, 30, -40}, {2, 2}, kF64).requires_grad_();
  Generator gen(1);
  for (Tensor y : {dropout_add(residual, x, 0.5, false, gen), dropout_add(residual, x, 0, true, gen)}) {
    CHECK(y.producer()->op == "add");
    require_values(y, {11, -18, 33, -36});
  }
  CHECK(gen.offset() == 0);  // nothing was drawn
  Tensor y = dropout_add(residual, x, 1, true, gen);
  require_values(y, {1, 2, 3, 4});
  y.backward(full({2, 2}, 3.0, kF64));
  require_values(x.grad(), {0, 0, 0, 0});
  require_values(residual.grad(), {3, 3, 3, 3});
}

TEST_CASE("gradcheck dropout_add") {
  // The same generator state at every evaluation, so every evaluation draws the same mask.
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);
    return dropout_add(in[0], in[1], 0.4, true, gen);
  };
  require_gradcheck("dropout_add", fn, {rand64({2, 3}, 1), rand64({2, 3}, 2)});
  require_gradcheck("dropout_add", fn, {rand64({4, 5, 3}, 3), noncontig64({4, 5, 3}, 4)});
}

TEST_CASE("dropout_add: errors name the op, the argument and the limit") {
  CHECK_THROWS_WITH_AS(dropout_add(ones({2, 3}), ones({2, 3}), 1.5, true),
                       "dropout_add: p must be in [0, 1], got 1.5 (x (2,3) float32)", Error);
  CHECK_THROWS_WITH_AS(dropout_add(ones({2, 3}), ones({3}), 0.5, true),
                       "dropout_add: residual and x must have one shape (no broadcasting), got residual (2,3) and "
                       "x (3,)",
                       Error);
  CHECK_THROWS_WITH_AS(dropout_add(ones({2}), ones({2}, kF64), 0.5, true), doctest::Contains("dropout_add"), Error);
  CHECK_THROWS_WITH_AS(dropout_add(tensor_i64({1, 2}), ones({2}), 0.5, true),
                       "dropout_add: argument 'residual' must be float32 or float64, got int64 (2,)", Error);
  CHECK_THROWS_WITH_AS(dropout_add(ones({2}), Tensor(), 0.5, true), doctest::Contains("dropout_add"), Error);
}

TEST_CASE("dropout_add: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{rand64({4, 5, 3}, 2), noncontig64({4, 5, 3}, 3)};
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(8);
    return dropout_add(in[0], in[1], 0.4, true, gen);
  };
  require_cuda_matches_cpu_with_grads("dropout_add p 0.4 (4,5,3), x non-contiguous", fn, inputs);
  // The same mask on both devices: where the CPU dropped x, the GPU's sum is the residual too.
  const Device gpu = Device::cuda();
  for (DType dtype : {kF32, kF64}) {
    Tensor r = to_dtype_copy(rand64({9}, 5), dtype), x = to_dtype_copy(rand64({9}, 6), dtype);
    Tensor on_cpu = dropout_add_from(r, x, 0.3, 3, 17);
    Tensor on_gpu = dropout_add_from(to_device_copy(r, gpu), to_device_copy(x, gpu), 0.3, 3, 17);
    REQUIRE(on_gpu.is_cuda());
    require_close(to_device_copy(on_gpu, kCPU), on_cpu, 1e-6, 1e-6);
  }
}
