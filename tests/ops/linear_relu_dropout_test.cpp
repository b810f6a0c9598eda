#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "elementwise_test_util.h"
#include "fused_pair_test_util.h"
#include "ops/fused/linear/linear.h"
#include "ops/fused/linear_relu_dropout/linear_relu_dropout.h"
#include "ops/fused/relu_dropout/relu_dropout.h"
#include "ops/mul/mul.h"
#include "ops/relu/relu.h"
#include "ops/sum/sum.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("linear_relu_dropout: hand-worked forward and backward, mask from the draw rule") {
  // x (2,3), weight (2,3), bias (2), p = 0.5: y = x W^T + b, out = kept && y > 0 ? 2y : 0, element i
  // of y (row-major) kept when dropout_uniform_at(18, 0, i, 0.5) > 0.5. Backward from g = 1: gy = 2 where kept
  // and y > 0, else 0; dx = gy W, dW = gy^T x, db = the column sums of gy.
  // y = (-1.9, 7, 3.6, 2.25) and the draw keeps elements 0 and 1: one zeroed by the relu, one
  // through, two dropped.
  const std::vector<double> xv{1, -2, 0.5, 3, 1, -1}, wv{0.5, 1, -1, -2, 0.25, 1}, bv{0.1, 7};
  Tensor x = tensor(xv, {2, 3}, kF64).requires_grad_(), w = tensor(wv, {2, 3}, kF64).requires_grad_();
  Tensor b = tensor(bv, {2}, kF64).requires_grad_();
  Generator gen(18);
  Tensor out = linear_relu_dropout(x, w, b, 0.5, true, gen);
  CHECK(gen.offset() == dropout_counters(4, 0.5));  // as dropout
  CHECK(out.producer()->op == "linear_relu_dropout");
  std::vector<double> y(4), expected(4), gy(4), dx(6, 0), dw(6, 0), db(2, 0);
  int through = 0;
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 2; ++o) {
      const int i = 2 * r + o;
      y[i] = bv[o];
      for (int k = 0; k < 3; ++k) y[i] += xv[3 * r + k] * wv[3 * o + k];
      const bool keep = dropout_uniform_at(18, 0, uint64_t(i), 0.5) > 0.5 && y[i] > 0;
      through += keep;
      expected[i] = keep ? 2 * y[i] : 0;
      gy[i] = keep ? 2 : 0;
    }
  CHECK(through == 1);
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 2; ++o) {
      db[o] += gy[2 * r + o];
      for (int k = 0; k < 3; ++k) {
        dx[3 * r + k] += gy[2 * r + o] * wv[3 * o + k];
        dw[3 * o + k] += gy[2 * r + o] * xv[3 * r + k];
      }
    }
  require_values(out, expected, 1e-12);
  out.backward(full({2, 2}, 1.0, kF64));
  require_values(x.grad(), dx, 1e-12);
  require_values(w.grad(), dw, 1e-12);
  require_values(b.grad(), db, 0);
}

TEST_CASE("linear_relu_dropout: the values, gradients and draws of linear then relu_dropout, exactly") {
  // float32 on the products' team (row, column and depth splits, the draw after the depth sums),
  // ragged shapes, a 3-D and a non-contiguous x, no bias, x's gradient gathered from two entries;
  // float64 kernel after kernel
  for_linear_cases(linear_cases(), {0}, [](const LinearCase& c, DType dtype, const std::vector<int>& reread) {
    const FusedAndUnfused r = run_fused_and_unfused(
        c.inputs, dtype,
        [](const TensorList& in, Generator& gen) { return linear_relu_dropout(in[0], in[1], in[2], 0.3, true, gen); },
        [](const TensorList& in, Generator& gen) { return relu_dropout(linear(in[0], in[1], in[2]), 0.3, true, gen); },
        reread);
    CHECK(r.fused.producer()->op == "linear_relu_dropout");
    require_same_as_unfused(r);
  });
}

TEST_CASE("linear_relu_dropout: eval mode and p = 0 are linear then relu, p = 1 drops everything") {
  Tensor x = rand64({2, 4}, 1).detach().requires_grad_(), w = rand64({3, 4}, 2).detach().requires_grad_();
  Generator gen(1);
  for (Tensor y : {linear_relu_dropout(x, w, {}, 0.5, false, gen), linear_relu_dropout(x, w, {}, 0, true, gen)}) {
    CHECK(y.producer()->op == "relu");
    require_close(y, relu(linear(x, w)), 0, 0);
  }
  CHECK(gen.offset() == 0);  // nothing was drawn
  Tensor y = linear_relu_dropout(x, w, {}, 1, true, gen);
  require_values(y, std::vector<double>(6, 0.0), 0);
  y.backward(rand64({2, 3}, 3).detach());
  require_values(x.grad(), std::vector<double>(8, 0.0), 0);
  require_values(w.grad(), std::vector<double>(12, 0.0), 0);
}

TEST_CASE("gradcheck linear_relu_dropout") {
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);  // the same mask at every evaluation
    return linear_relu_dropout(in[0], in[1], in[2], 0.4, true, gen);
  };
  require_gradcheck("linear_relu_dropout", fn, {rand64({2, 3}, 1), rand64({4, 3}, 2), rand64({4}, 3)});
  require_gradcheck("linear_relu_dropout", fn, {noncontig64({4, 5, 3}, 4), rand64({6, 3}, 5), rand64({6}, 6)});
}

TEST_CASE("linear_relu_dropout: errors name the op, the argument and the limit") {
  CHECK_THROWS_WITH_AS(linear_relu_dropout(ones({2, 3}), ones({4, 3}), ones({4}), 1.5, true),
                       "linear_relu_dropout: p must be in [0, 1], got 1.5 (x (2,3) float32)", Error);
  CHECK_THROWS_WITH_AS(linear_relu_dropout(ones({2, 3}), ones({4, 2}), ones({4}), 0.5, true),
                       "linear_relu_dropout: expected x (..., in), weight (out, in), bias (out), got x (2,3) weight "
                       "(4,2) bias (4,)",
                       Error);
  CHECK_THROWS_WITH_AS(linear_relu_dropout(ones({2, 3}), ones({4, 3}), ones({3}), 0.5, true),
                       doctest::Contains("linear_relu_dropout: expected x (..., in)"), Error);
  CHECK_THROWS_WITH_AS(linear_relu_dropout(ones({2, 3}), ones({4, 3}, kF64), {}, 0.5, true),
                       doctest::Contains("linear_relu_dropout"), Error);
}

TEST_CASE("linear_relu_dropout: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{noncontig64({4, 5, 3}, 2), rand64({6, 3}, 3), rand64({6}, 4)};
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(8);
    return linear_relu_dropout(in[0], in[1], in[2], 0.4, true, gen);
  };
  require_cuda_matches_cpu_with_grads("linear_relu_dropout p 0.4 (4,5,3), x non-contiguous", fn, inputs);
}
