#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "elementwise_test_util.h"
#include "fused_pair_test_util.h"
#include "ops/add/add.h"
#include "ops/fused/dropout_add/dropout_add.h"
#include "ops/fused/linear/linear.h"
#include "ops/fused/linear_dropout_add/linear_dropout_add.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("linear_dropout_add: hand-worked forward and backward, mask from the draw rule") {
  // x (2,2), weight (2,2), bias (2), residual (2,2), p = 0.5: y = x W^T + b, out = residual +
  // (kept ? 2y : 0), element i of y (row-major) kept when dropout_uniform_at(3, 0, i, 0.5) > 0.5. Backward from
  // g = 1: dresidual = 1, gy = kept ? 2 : 0, dx = gy W, dW = gy^T x, db = the column sums of gy.
  const std::vector<double> xv{1, -2, 0.5, 3}, wv{0.5, 1, -1, -2}, bv{0.1, 7}, rv{1, 2, 3, 4};
  Tensor x = tensor(xv, {2, 2}, kF64).requires_grad_(), w = tensor(wv, {2, 2}, kF64).requires_grad_();
  Tensor b = tensor(bv, {2}, kF64).requires_grad_(), residual = tensor(rv, {2, 2}, kF64).requires_grad_();
  Generator gen(3);
  Tensor out = linear_dropout_add(x, w, b, residual, 0.5, true, gen);
  CHECK(gen.offset() == dropout_counters(4, 0.5));  // as dropout
  CHECK(out.producer()->op == "linear_dropout_add");
  std::vector<double> expected(4), gy(4), dx(4, 0), dw(4, 0), db(2, 0);
  int kept_count = 0;
  for (int r = 0; r < 2; ++r)
    for (int o = 0; o < 2; ++o) {
      const int i = 2 * r + o;
      const double y = bv[o] + xv[2 * r] * wv[2 * o] + xv[2 * r + 1] * wv[2 * o + 1];
      const bool kept = dropout_uniform_at(3, 0, uint64_t(i), 0.5) > 0.5;
      kept_count += kept;
      expected[i] = rv[i] + (kept ? 2 * y : 0);
      gy[i] = kept ? 2 : 0;
      db[o] += gy[i];
      for (int k = 0; k < 2; ++k) {
        dx[2 * r + k] += gy[i] * wv[2 * o + k];
        dw[2 * o + k] += gy[i] * xv[2 * r + k];
      }
    }
  CHECK(kept_count > 0);
  CHECK(kept_count < 4);
  require_values(out, expected, 1e-12);
  out.backward(full({2, 2}, 1.0, kF64));
  require_values(residual.grad(), std::vector<double>(4, 1.0), 0);
  require_values(x.grad(), dx, 1e-12);
  require_values(w.grad(), dw, 1e-12);
  require_values(b.grad(), db, 0);
}

TEST_CASE("linear_dropout_add: the values, gradients and draws of linear then dropout_add, exactly") {
  // float32 on the products' team (row, column and depth splits; the epilogue after the depth
  // sums), ragged shapes, a 3-D non-contiguous x and residual, no bias, a 1-D x, gradients gathered
  // from two entries, the linear layer frozen, and without a draw (eval, p = 0: the sum alone);
  // float64 kernel after kernel
  struct Case {
    const char* what;
    TensorList inputs;  // x, weight, bias, residual
    std::vector<int> frozen = {};
  };
  const std::vector<Case> cases{
      {"(300,128) -> 256: the team", {rand64({300, 128}, 1), rand64({256, 128}, 2), rand64({256}, 3),
                                      rand64({300, 256}, 4)}},
      {"(8,4000) -> 40: split over the depth", {rand64({8, 4000}, 5), rand64({40, 4000}, 6), rand64({40}, 7),
                                                rand64({8, 40}, 8)}},
      {"(37,130) -> 67: ragged", {rand64({37, 130}, 9), rand64({67, 130}, 10), rand64({67}, 11), rand64({37, 67}, 12)}},
      {"(4,5,7) non-contiguous -> 6, no bias", {noncontig64({4, 5, 7}, 13), rand64({6, 7}, 14), Tensor(),
                                                noncontig64({4, 5, 6}, 15)}},
      {"(5,) -> 3: one row", {rand64({5}, 16), rand64({3, 5}, 17), rand64({3}, 18), rand64({3}, 19)}},
      {"(300,128) -> 256, the linear layer frozen", {rand64({300, 128}, 1), rand64({256, 128}, 2), rand64({256}, 3),
                                                     rand64({300, 256}, 4)}, {0, 1, 2}}};
  struct Draw {
    double p;
    bool training;
  };
  for (const Draw d : {Draw{0.3, true}, Draw{0, true}, Draw{0.3, false}}) {
    CAPTURE(d.p);
    CAPTURE(d.training);
    for_linear_cases(cases, {0, 3}, [&](const Case& c, DType dtype, const std::vector<int>& reread) {
      const FusedAndUnfused r = run_fused_and_unfused(
          c.inputs, dtype,
          [&](const TensorList& in, Generator& gen) {
            return linear_dropout_add(in[0], in[1], in[2], in[3], d.p, d.training, gen);
          },
          [&](const TensorList& in, Generator& gen) {
            return dropout_add(in[3], linear(in[0], in[1], in[2]), d.p, d.training, gen);
          },
          reread, c.frozen);
      CHECK(r.fused.producer()->op == "linear_dropout_add");
      require_same_as_unfused(r);
    });
  }
}

TEST_CASE("linear_dropout_add: p = 1 drops the layer, leaving the residual") {
  Tensor x = rand64({2, 4}, 1).detach().requires_grad_(), w = rand64({3, 4}, 2).detach().requires_grad_();
  Tensor residual = rand64({2, 3}, 3).detach().requires_grad_();
  Generator gen(1);
  Tensor y = linear_dropout_add(x, w, {}, residual, 1, true, gen);
  require_close(y, residual, 0, 0);
  y.backward(rand64({2, 3}, 4).detach());
  require_values(x.grad(), std::vector<double>(8, 0.0), 0);
  require_values(w.grad(), std::vector<double>(12, 0.0), 0);
}

TEST_CASE("gradcheck linear_dropout_add") {
  for (bool training : {true, false}) {
    CAPTURE(training);
    auto fn = [training](const std::vector<Tensor>& in) {
      Generator gen(7);  // the same mask at every evaluation
      return linear_dropout_add(in[0], in[1], in[2], in[3], 0.4, training, gen);
    };
    require_gradcheck("linear_dropout_add", fn,
                      {rand64({2, 4}, 1), rand64({3, 4}, 2), rand64({3}, 3), rand64({2, 3}, 4)});
    require_gradcheck("linear_dropout_add", fn,
                      {noncontig64({4, 5, 2}, 5), rand64({3, 2}, 6), rand64({3}, 7), noncontig64({4, 5, 3}, 8)});
  }
}

TEST_CASE("linear_dropout_add: errors name the op, the argument and the limit") {
  CHECK_THROWS_WITH_AS(linear_dropout_add(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}), 1.5, true),
                       "linear_dropout_add: p must be in [0, 1], got 1.5 (x (2,3) float32)", Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add(ones({2, 3}), ones({4, 2}), {}, ones({2, 4}), 0.5, true),
                       "linear_dropout_add: expected x (..., in), weight (out, in), bias (out), got x (2,3) weight "
                       "(4,2) bias none",
                       Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add(ones({2, 3}), ones({4, 3}), {}, ones({2, 3}), 0.5, true),
                       "linear_dropout_add: residual must have linear's output shape (..., out) = (2,4), got (2,3)",
                       Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add(ones({2, 3}), ones({4, 3}), {}, Tensor(), 0.5, true),
                       "linear_dropout_add: argument 'residual' is an undefined tensor", Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}, kF64), 0.5, true),
                       doctest::Contains("linear_dropout_add"), Error);
}

TEST_CASE("linear_dropout_add: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{noncontig64({4, 5, 2}, 2), rand64({3, 2}, 3), rand64({3}, 4),
                                   rand64({4, 5, 3}, 5)};
  if (!gpu_available_or_skip()) return;
  for (bool training : {true, false}) {
    auto fn = [training](const std::vector<Tensor>& in) {
      Generator gen(8);
      return linear_dropout_add(in[0], in[1], in[2], in[3], 0.4, training, gen);
    };
    require_cuda_matches_cpu_with_grads(training ? "linear_dropout_add p 0.4 (4,5,2) -> 3, x non-contiguous"
                                                 : "linear_dropout_add eval (4,5,2) -> 3",
                                        fn, inputs);
  }
}
