#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

// Options chosen so that every term shows: lr 0.1, beta1 0.5, beta2 0.75, eps 0.1.
// Bias corrections: step 1: 1 - 0.5 = 0.5 and 1 - 0.75 = 0.25 (sqrt 0.5);
//                   step 2: 1 - 0.25 = 0.75 and 1 - 0.5625 = 0.4375 (sqrt 0.661437827766...).

TEST_CASE("adam: two steps by hand (moments, bias correction, eps after the correction)") {
  NamedParameter p = param("p", {1, -2});
  Adam opt({p}, {.lr = 0.1, .beta1 = 0.5, .beta2 = 0.75, .eps = 0.1});
  // step 1, g = [0.4, -1]: m = 0.5 * g = [0.2, -0.5]; v = 0.25 * g^2 = [0.04, 0.25]
  //   denom = sqrt(v) / 0.5 + 0.1 = [0.5, 1.1]
  //   p -= (0.1 / 0.5) * m / denom = 0.2 * [0.4, -0.454545...] = [0.08, -0.0909090909...]
  set_grad(p, {0.4, -1});
  opt.step();
  require_values(p.tensor, {0.92, -2 + 1.0 / 11}, 1e-12);
  // step 2, g = [0.2, 0.5]: m = 0.5 * [0.2, -0.5] + 0.5 * [0.2, 0.5] = [0.2, 0]
  //   v = 0.75 * [0.04, 0.25] + 0.25 * [0.04, 0.25] = [0.04, 0.25]
  //   denom[0] = 0.2 / 0.661437827766 + 0.1 = 0.402371578407...
  //   p[0] -= (0.1 / 0.75) * 0.2 / 0.402371578407 = 0.0662737332796...  -> 0.853726266720...
  //   p[1] unchanged (m = 0)
  set_grad(p, {0.2, 0.5});
  opt.step();
  require_values(p.tensor, {0.8537262667203895, -2 + 1.0 / 11}, 1e-12);
  StateDict state = opt.state_dict();
  require_values(entry(state, "state.p.exp_avg"), {0.2, 0}, 1e-12);
  require_values(entry(state, "state.p.exp_avg_sq"), {0.04, 0.25}, 1e-12);
  CHECK(entry(state, "state.p.step").item() == 2);
}

TEST_CASE("adam: weight decay is L2 added to the gradient") {
  // g = grad + 0.5 * p: step 1: -0.1 + 0.5 * 1 = 0.4; step 2: -0.26 + 0.5 * 0.92 = 0.2.
  // These are the gradients of element 0 above, so p follows it: 0.92, then 0.853726266720...
  NamedParameter p = param("p", {1});
  Adam opt({p}, {.lr = 0.1, .beta1 = 0.5, .beta2 = 0.75, .eps = 0.1, .weight_decay = 0.5});
  set_grad(p, {-0.1});
  opt.step();
  require_values(p.tensor, {0.92}, 1e-12);
  set_grad(p, {-0.26});
  opt.step();
  require_values(p.tensor, {0.8537262667203895}, 1e-12);
}

TEST_CASE("adamw: decoupled weight decay shrinks p before the Adam update") {
  NamedParameter p = param("p", {1});
  AdamW opt({p}, {.lr = 0.1, .beta1 = 0.5, .beta2 = 0.75, .eps = 0.1, .weight_decay = 0.5});
  // step 1: p *= 1 - 0.1 * 0.5 -> 0.95; the Adam update for g = 0.4 is 0.08 (above) -> 0.87
  set_grad(p, {0.4});
  opt.step();
  require_values(p.tensor, {0.87}, 1e-12);
  // step 2: p *= 0.95 -> 0.8265; the Adam update for g = 0.2 is 0.0662737332796... -> 0.760226266720...
  set_grad(p, {0.2});
  opt.step();
  require_values(p.tensor, {0.7602262667203895}, 1e-12);
  CHECK(opt.name() == "adamw");
  CHECK(AdamW({param("q", {1})}).groups()[0].weight_decay == 0.01);  // PyTorch's default
}

TEST_CASE("adamw: equals adam without weight decay, differs with it") {
  auto run = [](bool decoupled, double weight_decay) {
    NamedParameter p = param("p", {1, -2, 3});
    std::unique_ptr<Optimizer> opt;
    if (decoupled)
      opt = std::make_unique<AdamW>(std::vector<NamedParameter>{p}, AdamWOptions{.lr = 0.1, .weight_decay = weight_decay});
    else
      opt = std::make_unique<Adam>(std::vector<NamedParameter>{p}, AdamOptions{.lr = 0.1, .weight_decay = weight_decay});
    for (const std::vector<double>& g : {std::vector<double>{0.5, 1, -3}, {-1, 2, 0.125}}) {
      set_grad(p, g);
      opt->step();
    }
    return p.tensor.to_vector<double>();
  };
  CHECK(run(true, 0) == run(false, 0));
  std::vector<double> adam = run(false, 0.5), adamw = run(true, 0.5);
  for (size_t i = 0; i < adam.size(); ++i) CHECK(std::abs(adam[i] - adamw[i]) > 1e-3);
}

TEST_CASE("adam: float32 parameters follow the float64 result") {
  const F64AndF32Runs run = step_f64_and_f32([](const std::vector<NamedParameter>& params) {
    return std::make_unique<AdamW>(params, AdamWOptions{.lr = 0.01, .weight_decay = 0.1});
  });
  CHECK(run.p32.tensor.dtype() == kF32);
  require_close(run.p32.tensor, run.p64.tensor, 1e-6, 1e-5);
  require_close(entry(run.opt32->state_dict(), "state.p.exp_avg_sq"),
                entry(run.opt64->state_dict(), "state.p.exp_avg_sq"), 1e-7, 1e-5);
}

TEST_CASE("adam: bad options are tg::Errors") {
  NamedParameter p = param("p", {1});
  CHECK_THROWS_WITH_AS(Adam({p}, {.lr = -1e-3}), "adam: lr of group '0' must be >= 0, got -0.001", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.beta1 = 1}), "adam: beta1 must be in [0, 1), got 1", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.beta1 = -0.1}), "adam: beta1 must be in [0, 1), got -0.1", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.beta2 = 1.5}), "adam: beta2 must be in [0, 1), got 1.5", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.eps = 0}), "adam: eps must be > 0, got 0", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.eps = -1e-8}), "adam: eps must be > 0, got -1e-08", Error);
  CHECK_THROWS_WITH_AS(Adam({p}, {.weight_decay = -0.1}), "adam: weight_decay of group '0' must be >= 0, got -0.1", Error);
  CHECK_THROWS_WITH_AS(AdamW({p}, {.beta2 = -0.5}), "adamw: beta2 must be in [0, 1), got -0.5", Error);
  CHECK_THROWS_WITH_AS(AdamW({p}, {.lr = -1}), "adamw: lr of group '0' must be >= 0, got -1", Error);
}

TEST_CASE("adam and adamw: CUDA match CPU over a few steps") {
  if (!gpu_available_or_skip()) return;
  require_cuda_optimizer_matches_cpu("adam", [](const std::vector<NamedParameter>& params) {
    return std::make_unique<Adam>(params, AdamOptions{.lr = 0.1, .beta1 = 0.5, .beta2 = 0.75, .eps = 0.1});
  });
  require_cuda_optimizer_matches_cpu("adam with weight decay", [](const std::vector<NamedParameter>& params) {
    return std::make_unique<Adam>(params, AdamOptions{.lr = 0.01, .weight_decay = 0.1});
  });
  require_cuda_optimizer_matches_cpu("adamw", [](const std::vector<NamedParameter>& params) {
    return std::make_unique<AdamW>(params, AdamWOptions{.lr = 0.01, .weight_decay = 0.1});
  });
}
