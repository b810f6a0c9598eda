#include <cmath>
#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "elementwise_test_util.h"
#include "fused_pair_test_util.h"
#include "ops/add/add.h"
#include "ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.h"
#include "ops/fused/linear/linear.h"
#include "ops/fused/linear_dropout_add_layer_norm/linear_dropout_add_layer_norm.h"
#include "ops/layer_norm/layer_norm.h"
#include "ops/mul/mul.h"
#include "ops/sum/sum.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("linear_dropout_add_layer_norm: hand-worked forward and backward, mask from the draw rule") {
  // x (2,2), weight (3,2), bias (3), residual (2,3), p = 0.5: y = x W^T + b, sum = residual +
  // (kept ? 2y : 0), each row of the sum normalised (biased variance, eps 1e-5), times gamma plus
  // beta; element i of y (row-major) kept when dropout_uniform_at(42, 0, i, 0.5) > 0.5. Backward from g = 1:
  // dsum = rstd * (gamma - mean(gamma) - norm * mean(gamma * norm)) = dresidual, gy = kept ? 2 dsum
  // : 0, dx = gy W, dW = gy^T x, db = the column sums of gy, dgamma = the column sums of norm,
  // dbeta = 2 (the rows).
  const std::vector<double> xv{1, -2, 0.5, 3}, wv{0.5, 1, -1, -2, 0.25, 1}, bv{0.1, -0.3, 2};
  const std::vector<double> rv{1, 2, 3, -1, 0, 4}, gv{1, 2, -1}, betav{0, 0.5, 1};
  Tensor x = tensor(xv, {2, 2}, kF64).requires_grad_(), w = tensor(wv, {3, 2}, kF64).requires_grad_();
  Tensor b = tensor(bv, {3}, kF64).requires_grad_(), residual = tensor(rv, {2, 3}, kF64).requires_grad_();
  Tensor gamma = tensor(gv, {3}, kF64).requires_grad_(), beta = tensor(betav, {3}, kF64).requires_grad_();
  Generator gen(42);
  Tensor out = linear_dropout_add_layer_norm(x, w, b, residual, 0.5, true, {3}, gamma, beta, 1e-5, gen);
  CHECK(gen.offset() == dropout_counters(6, 0.5));  // as dropout
  CHECK(out.producer()->op == "linear_dropout_add_layer_norm");
  std::vector<double> s(6), expected(6), dres(6), gy(6), dx(4, 0), dw(6, 0), db(3, 0), dgamma(3, 0);
  int kept_count = 0;
  for (int r = 0; r < 2; ++r) {
    for (int o = 0; o < 3; ++o) {
      const int i = 3 * r + o;
      double y = bv[o];
      for (int k = 0; k < 2; ++k) y += xv[2 * r + k] * wv[2 * o + k];
      const bool kept = dropout_uniform_at(42, 0, uint64_t(i), 0.5) > 0.5;
      kept_count += kept;
      s[i] = rv[i] + (kept ? 2 * y : 0);
      gy[i] = kept ? 2 : 0;  // times dsum, below
    }
    const double m = (s[3 * r] + s[3 * r + 1] + s[3 * r + 2]) / 3;
    double var = 0;
    for (int c = 0; c < 3; ++c) var += (s[3 * r + c] - m) * (s[3 * r + c] - m) / 3;
    const double rstd = 1 / std::sqrt(var + 1e-5);
    double gamma_norm = 0;
    for (int c = 0; c < 3; ++c) gamma_norm += gv[c] * (s[3 * r + c] - m) * rstd / 3;
    for (int c = 0; c < 3; ++c) {
      const int i = 3 * r + c;
      const double norm = (s[i] - m) * rstd;
      expected[i] = norm * gv[c] + betav[c];
      dres[i] = rstd * (gv[c] - (gv[0] + gv[1] + gv[2]) / 3 - norm * gamma_norm);
      gy[i] *= dres[i];
      dgamma[c] += norm;
      db[c] += gy[i];
      for (int k = 0; k < 2; ++k) {
        dx[2 * r + k] += gy[i] * wv[2 * c + k];
        dw[2 * c + k] += gy[i] * xv[2 * r + k];
      }
    }
  }
  CHECK(kept_count > 0);
  CHECK(kept_count < 6);
  require_values(out, expected, 1e-12);
  out.backward(full({2, 3}, 1.0, kF64));
  require_values(residual.grad(), dres, 1e-9);
  require_values(x.grad(), dx, 1e-9);
  require_values(w.grad(), dw, 1e-9);
  require_values(b.grad(), db, 1e-9);
  require_values(gamma.grad(), dgamma, 1e-12);
  require_values(beta.grad(), std::vector<double>{2, 2, 2}, 0);
}

TEST_CASE("linear_dropout_add_layer_norm: the values, gradients and draws of linear then dropout_add_layer_norm") {
  // float32 on the products' team (row, column and depth splits; the norm after the depth sums),
  // ragged shapes, a 3-D non-contiguous x, no biases or norm weight, two normalised dims, a 1-D x,
  // gradients gathered from two entries, the linear layer frozen; float64 kernel after kernel
  struct Case {
    const char* what;
    TensorList inputs;  // x, weight, bias, residual, norm_weight, norm_bias
    Shape normalized_shape;
    std::vector<int> frozen = {};
  };
  const auto norm_params = [](int64_t C, uint64_t seed) {
    return TensorList{rand64({C}, seed), rand64({C}, seed + 1)};
  };
  auto inputs = [](TensorList linear, const Tensor& residual, const TensorList& norm) {
    linear.push_back(residual);
    linear.insert(linear.end(), norm.begin(), norm.end());
    return linear;
  };
  const std::vector<Case> cases{
      {"(300,128) -> 256: the team",
       inputs({rand64({300, 128}, 1), rand64({256, 128}, 2), rand64({256}, 3)}, rand64({300, 256}, 4),
              norm_params(256, 5)),
       {256}},
      {"(8,4000) -> 40: split over the depth",
       inputs({rand64({8, 4000}, 7), rand64({40, 4000}, 8), rand64({40}, 9)}, rand64({8, 40}, 10), norm_params(40, 11)),
       {40}},
      {"(37,130) -> 67: ragged",
       inputs({rand64({37, 130}, 13), rand64({67, 130}, 14), rand64({67}, 15)}, rand64({37, 67}, 16),
              norm_params(67, 17)),
       {67}},
      {"(4,5,7) non-contiguous -> 6, no biases or norm weight, over (5,6)",
       inputs({noncontig64({4, 5, 7}, 19), rand64({6, 7}, 20), Tensor()}, noncontig64({4, 5, 6}, 21),
              {Tensor(), Tensor()}),
       {5, 6}},
      {"(5,) -> 3: one row", inputs({rand64({5}, 22), rand64({3, 5}, 23), rand64({3}, 24)}, rand64({3}, 25),
                                    norm_params(3, 26)), {3}},
      {"(300,128) -> 256, the linear layer frozen",
       inputs({rand64({300, 128}, 1), rand64({256, 128}, 2), rand64({256}, 3)}, rand64({300, 256}, 4),
              norm_params(256, 5)),
       {256}, {0, 1, 2}}};
  for_linear_cases(cases, {0, 3}, [](const Case& c, DType dtype, const std::vector<int>& reread) {
    const Shape& shape = c.normalized_shape;
    const FusedAndUnfused r = run_fused_and_unfused(
        c.inputs, dtype,
        [&](const TensorList& in, Generator& gen) {
          return linear_dropout_add_layer_norm(in[0], in[1], in[2], in[3], 0.3, true, shape, in[4], in[5], 1e-5, gen);
        },
        [&](const TensorList& in, Generator& gen) {
          return dropout_add_layer_norm(in[3], linear(in[0], in[1], in[2]), 0.3, true, shape, in[4], in[5], 1e-5,
                                        gen);
        },
        reread, c.frozen);
    CHECK(r.fused.producer()->op == "linear_dropout_add_layer_norm");
    require_same_as_unfused(r);
  });
}

TEST_CASE("linear_dropout_add_layer_norm: eval mode and p = 0 draw nothing, p = 1 normalises the residual") {
  Tensor x = rand64({2, 4}, 1).detach().requires_grad_(), w = rand64({3, 4}, 2).detach().requires_grad_();
  Tensor residual = rand64({2, 3}, 3).detach().requires_grad_();
  Generator gen(1);
  for (Tensor y : {linear_dropout_add_layer_norm(x, w, {}, residual, 0.5, false, {3}, {}, {}, 1e-5, gen),
                   linear_dropout_add_layer_norm(x, w, {}, residual, 0, true, {3}, {}, {}, 1e-5, gen)}) {
    CHECK(y.producer()->op == "layer_norm");
    require_close(y, layer_norm(add(residual, linear(x, w)), {3}), 0, 0);
  }
  CHECK(gen.offset() == 0);  // nothing was drawn
  Tensor y = linear_dropout_add_layer_norm(x, w, {}, residual, 1, true, {3}, {}, {}, 1e-5, gen);
  require_close(y, layer_norm(residual, {3}), 0, 0);
  y.backward(rand64({2, 3}, 4).detach());
  require_values(x.grad(), std::vector<double>(8, 0.0), 0);
  require_values(w.grad(), std::vector<double>(12, 0.0), 0);
}

TEST_CASE("gradcheck linear_dropout_add_layer_norm") {
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);  // the same mask at every evaluation
    return linear_dropout_add_layer_norm(in[0], in[1], in[2], in[3], 0.4, true, {3}, in[4], in[5], 1e-5, gen);
  };
  require_gradcheck("linear_dropout_add_layer_norm", fn,
                    {rand64({2, 4}, 1), rand64({3, 4}, 2), rand64({3}, 3), rand64({2, 3}, 4), rand64({3}, 5),
                     rand64({3}, 6)});
  require_gradcheck("linear_dropout_add_layer_norm", fn,
                    {noncontig64({4, 5, 2}, 7), rand64({3, 2}, 8), rand64({3}, 9), noncontig64({4, 5, 3}, 10),
                     rand64({3}, 11), rand64({3}, 12)});
}

TEST_CASE("linear_dropout_add_layer_norm: errors name the op, the argument and the limit") {
  const char* op = "linear_dropout_add_layer_norm";
  CHECK_THROWS_WITH_AS(linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}), 1.5, true, {4}),
                       "linear_dropout_add_layer_norm: p must be in [0, 1], got 1.5 (x (2,3) float32)", Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 2}), {}, ones({2, 4}), 0.5, true, {4}),
                       "linear_dropout_add_layer_norm: expected x (..., in), weight (out, in), bias (out), got x (2,3) "
                       "weight (4,2) bias none",
                       Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, ones({2, 3}), 0.5, true, {3}),
                       "linear_dropout_add_layer_norm: residual must have linear's output shape (..., out) = (2,4), "
                       "got (2,3)",
                       Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}), 0.5, true, {3}),
                       "linear_dropout_add_layer_norm: normalized_shape (3,) must be non-empty, positive and equal to "
                       "the trailing dims of residual (2,4)",
                       Error);
  CHECK_THROWS_WITH_AS(
      linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}), 0.5, true, {4}, ones({2})),
      "linear_dropout_add_layer_norm: norm_weight has shape (2,) but normalized_shape is (4,)", Error);
  CHECK_THROWS_WITH_AS(
      linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}), 0.5, true, {4}, {}, {}, 0),
      "linear_dropout_add_layer_norm: eps must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, ones({2, 4}, kF64), 0.5, true,
                                                     {4}),
                       doctest::Contains(op), Error);
  CHECK_THROWS_WITH_AS(linear_dropout_add_layer_norm(ones({2, 3}), ones({4, 3}), {}, Tensor(), 0.5, true, {4}),
                       "linear_dropout_add_layer_norm: argument 'residual' is an undefined tensor", Error);
}

TEST_CASE("linear_dropout_add_layer_norm: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{noncontig64({4, 5, 2}, 2), rand64({3, 2}, 3), rand64({3}, 4),
                                   rand64({4, 5, 3}, 5), rand64({3}, 6), rand64({3}, 7)};
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(8);
    return linear_dropout_add_layer_norm(in[0], in[1], in[2], in[3], 0.4, true, {3}, in[4], in[5], 1e-5, gen);
  };
  require_cuda_matches_cpu_with_grads("linear_dropout_add_layer_norm p 0.4 (4,5,2) -> 3, x non-contiguous", fn,
                                      inputs);
}
