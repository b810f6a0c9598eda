#include <cmath>
#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "elementwise_test_util.h"
#include "fused_pair_test_util.h"
#include "ops/fused/dropout_add/dropout_add.h"
#include "ops/fused/dropout_add_layer_norm/dropout_add_layer_norm.h"
#include "ops/layer_norm/layer_norm.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("dropout_add_layer_norm: hand-worked forward and backward, mask from the draw rule") {
  // Two rows of 3, p = 0.5: sum = residual + (kept ? 2x : 0), then each row normalised (biased
  // variance, eps 1e-5), times weight plus bias. Element i is kept when dropout_uniform_at(42, 0, i, 0.5) > 0.5.
  const std::vector<double> rv{1, 2, 3, -1, 0, 4}, xv{0.5, -1, 2, 3, 1, -2}, wv{1, 2, -1}, bv{0, 0.5, 1};
  Tensor residual = tensor(rv, {2, 3}, kF64).requires_grad_(), x = tensor(xv, {2, 3}, kF64).requires_grad_();
  Tensor weight = tensor(wv, {3}, kF64).requires_grad_(), bias = tensor(bv, {3}, kF64).requires_grad_();
  Generator gen(42);
  Tensor y = dropout_add_layer_norm(residual, x, 0.5, true, {3}, weight, bias, 1e-5, gen);
  CHECK(gen.offset() == dropout_counters(6, 0.5));  // as dropout
  CHECK(y.producer()->op == "dropout_add_layer_norm");
  std::vector<double> s(6), out(6), dres(6), dx(6), dw(3, 0), db(3, 0);
  std::vector<bool> kept(6);
  int kept_count = 0;
  for (uint64_t i = 0; i < 6; ++i) {
    kept[i] = dropout_uniform_at(42, 0, i, 0.5) > 0.5;
    kept_count += kept[i];
    s[i] = rv[i] + (kept[i] ? 2 * xv[i] : 0);
  }
  CHECK(kept_count > 0);
  CHECK(kept_count < 6);
  // y.backward(g) with g = 1 everywhere: dnorm = w, dsum = rstd * (w - mean(w) - norm * mean(w * norm)).
  for (int r = 0; r < 2; ++r) {
    const double m = (s[3 * r] + s[3 * r + 1] + s[3 * r + 2]) / 3;
    double var = 0;
    for (int c = 0; c < 3; ++c) var += (s[3 * r + c] - m) * (s[3 * r + c] - m) / 3;
    const double rstd = 1 / std::sqrt(var + 1e-5);
    double w_norm = 0;
    for (int c = 0; c < 3; ++c) w_norm += wv[c] * (s[3 * r + c] - m) * rstd / 3;
    for (int c = 0; c < 3; ++c) {
      const int i = 3 * r + c;
      const double norm = (s[i] - m) * rstd;
      out[i] = norm * wv[c] + bv[c];
      dres[i] = rstd * (wv[c] - (wv[0] + wv[1] + wv[2]) / 3 - norm * w_norm);
      dx[i] = kept[i] ? 2 * dres[i] : 0;
      dw[c] += norm;
      db[c] += 1;
    }
  }
  require_values(y, out, 1e-12);
  y.backward(full({2, 3}, 1.0, kF64));
  require_values(residual.grad(), dres, 1e-9);
  require_values(x.grad(), dx, 1e-9);
  require_values(weight.grad(), dw, 1e-12);
  require_values(bias.grad(), db, 0);
}

TEST_CASE("dropout_add_layer_norm: the values, gradients and draws of dropout_add then layer_norm, exactly") {
  // float32 over many chunks and row groups on every thread, with ragged ends; float64;
  // non-contiguous inputs; no weight or bias; two normalised dims
  struct Case {
    const char* what;
    TensorList inputs;  // residual, x, weight, bias
    Shape normalized_shape;
  };
  const std::vector<Case> cases{
      {"(300,128): the parallel kernels", {rand64({300, 128}, 1), rand64({300, 128}, 2), rand64({128}, 3),
                                           rand64({128}, 4)}, {128}},
      {"(37,130): ragged chunks and rows", {rand64({37, 130}, 5), rand64({37, 130}, 6), rand64({130}, 7),
                                             rand64({130}, 8)}, {130}},
      {"non-contiguous (5,7)", {noncontig64({5, 7}, 9), noncontig64({5, 7}, 10), rand64({7}, 11), Tensor()}, {7}},
      {"no weight or bias, (2,3,4) over (3,4)", {rand64({2, 3, 4}, 12), rand64({2, 3, 4}, 13), Tensor(), Tensor()},
       {3, 4}}};
  for (const Case& c : cases)
    for (DType dtype : {kF32, kF64}) {
      CAPTURE(c.what);
      CAPTURE(dtype_name(dtype));
      const Shape& shape = c.normalized_shape;
      const FusedAndUnfused r = run_fused_and_unfused(
          c.inputs, dtype,
          [&](const TensorList& in, Generator& gen) {
            return dropout_add_layer_norm(in[0], in[1], 0.3, true, shape, in[2], in[3], 1e-5, gen);
          },
          [&](const TensorList& in, Generator& gen) {
            return layer_norm(dropout_add(in[0], in[1], 0.3, true, gen), shape, in[2], in[3], 1e-5);
          },
          {});
      CHECK(r.fused.producer()->op == "dropout_add_layer_norm");
      require_same_as_unfused(r);
    }
}

TEST_CASE("dropout_add_layer_norm: eval mode and p = 0 are add then layer_norm, p = 1 normalises the residual") {
  Tensor residual = rand64({2, 4}, 1).detach().requires_grad_(), x = rand64({2, 4}, 2).detach().requires_grad_();
  Generator gen(1);
  for (Tensor y : {dropout_add_layer_norm(residual, x, 0.5, false, {4}, {}, {}, 1e-5, gen),
                   dropout_add_layer_norm(residual, x, 0, true, {4}, {}, {}, 1e-5, gen)}) {
    CHECK(y.producer()->op == "layer_norm");
    require_close(y, layer_norm(add(residual, x), {4}), 0, 0);
  }
  CHECK(gen.offset() == 0);  // nothing was drawn
  Tensor y = dropout_add_layer_norm(residual, x, 1, true, {4}, {}, {}, 1e-5, gen);
  require_close(y, layer_norm(residual, {4}), 0, 0);
  y.backward(rand64({2, 4}, 3).detach());
  require_values(x.grad(), std::vector<double>(8, 0.0), 0);
}

TEST_CASE("gradcheck dropout_add_layer_norm") {
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);  // the same mask at every evaluation
    return dropout_add_layer_norm(in[0], in[1], 0.4, true, {3}, in[2], in[3], 1e-5, gen);
  };
  require_gradcheck("dropout_add_layer_norm", fn,
                    {rand64({2, 3}, 1), rand64({2, 3}, 2), rand64({3}, 3), rand64({3}, 4)});
  require_gradcheck("dropout_add_layer_norm", fn,
                    {rand64({4, 5, 3}, 5), noncontig64({4, 5, 3}, 6), rand64({3}, 7), rand64({3}, 8)});
}

TEST_CASE("dropout_add_layer_norm: errors name the op, the argument and the limit") {
  CHECK_THROWS_WITH_AS(dropout_add_layer_norm(ones({2, 3}), ones({2, 3}), 1.5, true, {3}),
                       "dropout_add_layer_norm: p must be in [0, 1], got 1.5 (x (2,3) float32)", Error);
  CHECK_THROWS_WITH_AS(dropout_add_layer_norm(ones({2, 3}), ones({3}), 0.5, true, {3}),
                       "dropout_add_layer_norm: residual and x must have one shape (no broadcasting), got residual "
                       "(2,3) and x (3,)",
                       Error);
  CHECK_THROWS_WITH_AS(dropout_add_layer_norm(ones({2, 3}), ones({2, 3}), 0.5, true, {4}),
                       "dropout_add_layer_norm: normalized_shape (4,) must be non-empty, positive and equal to the "
                       "trailing dims of x (2,3)",
                       Error);
  CHECK_THROWS_WITH_AS(dropout_add_layer_norm(ones({2, 3}), ones({2, 3}), 0.5, true, {3}, ones({2})),
                       "dropout_add_layer_norm: weight has shape (2,) but normalized_shape is (3,)", Error);
  CHECK_THROWS_WITH_AS(dropout_add_layer_norm(ones({2, 3}), ones({2, 3}), 0.5, true, {3}, {}, {}, 0),
                       "dropout_add_layer_norm: eps must be positive, got 0", Error);
  CHECK_THROWS_WITH_AS(dropout_add_layer_norm(ones({2}), ones({2}, kF64), 0.5, true, {2}),
                       doctest::Contains("dropout_add_layer_norm"), Error);
}

TEST_CASE("dropout_add_layer_norm: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{rand64({4, 5, 3}, 2), noncontig64({4, 5, 3}, 3), rand64({3}, 4), rand64({3}, 5)};
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(8);
    return dropout_add_layer_norm(in[0], in[1], 0.4, true, {3}, in[2], in[3], 1e-5, gen);
  };
  require_cuda_matches_cpu_with_grads("dropout_add_layer_norm p 0.4 (4,5,3), x non-contiguous", fn, inputs);
}
