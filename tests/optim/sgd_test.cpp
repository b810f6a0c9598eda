#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("sgd: plain updates and L2 weight decay, two steps by hand") {
  NamedParameter p = param("p", {1, -2});
  SGD opt({p}, {.lr = 0.1});
  // p -= 0.1 * g:  [1, -2] - 0.1 * [0.5, 1] = [0.95, -2.1]
  set_grad(p, {0.5, 1});
  opt.step();
  require_values(p.tensor, {0.95, -2.1}, 1e-12);
  // [0.95, -2.1] - 0.1 * [-1, 2] = [1.05, -2.3]
  set_grad(p, {-1, 2});
  opt.step();
  require_values(p.tensor, {1.05, -2.3}, 1e-12);
  CHECK(keys(opt.state_dict()) == std::vector<std::string>{"options.momentum", "options.dampening", "options.nesterov",
                                                          "group.0.lr", "group.0.weight_decay", "state.p.step"});

  NamedParameter q = param("q", {2});
  SGD decayed({q}, {.lr = 0.1, .weight_decay = 0.5});
  // g = 1 + 0.5 * 2 = 2;       q = 2 - 0.1 * 2 = 1.8
  set_grad(q, {1});
  decayed.step();
  require_values(q.tensor, {1.8}, 1e-12);
  // g = 1 + 0.5 * 1.8 = 1.9;   q = 1.8 - 0.19 = 1.61
  set_grad(q, {1});
  decayed.step();
  require_values(q.tensor, {1.61}, 1e-12);
}

TEST_CASE("sgd: momentum with dampening, two steps by hand") {
  NamedParameter p = param("p", {1, -2});
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.5});
  // step 1: buf = g = [0.5, 1] (no dampening on the first step); p = [1, -2] - 0.1 * buf = [0.95, -2.1]
  set_grad(p, {0.5, 1});
  opt.step();
  require_values(p.tensor, {0.95, -2.1}, 1e-12);
  require_values(entry(opt.state_dict(), "state.p.momentum_buffer"), {0.5, 1}, 1e-12);
  // step 2: buf = 0.9 * [0.5, 1] + 0.5 * [-1, 2] = [-0.05, 1.9]; p = [0.95 + 0.005, -2.1 - 0.19] = [0.955, -2.29]
  set_grad(p, {-1, 2});
  opt.step();
  require_values(p.tensor, {0.955, -2.29}, 1e-12);
  require_values(entry(opt.state_dict(), "state.p.momentum_buffer"), {-0.05, 1.9}, 1e-12);
  CHECK(entry(opt.state_dict(), "state.p.step").item() == 2);
}

TEST_CASE("sgd: nesterov momentum with weight decay, two steps by hand") {
  NamedParameter p = param("p", {1, -2});
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9, .nesterov = true, .weight_decay = 0.1});
  // step 1: g = [0.5, 1] + 0.1 * [1, -2] = [0.6, 0.8];  buf = g = [0.6, 0.8]
  //         g' = g + 0.9 * buf = [1.14, 1.52];          p = [1 - 0.114, -2 - 0.152] = [0.886, -2.152]
  set_grad(p, {0.5, 1});
  opt.step();
  require_values(p.tensor, {0.886, -2.152}, 1e-12);
  // step 2: g = [-1, 2] + 0.1 * [0.886, -2.152] = [-0.9114, 1.7848]
  //         buf = 0.9 * [0.6, 0.8] + g = [-0.3714, 2.5048]
  //         g' = g + 0.9 * buf = [-0.9114 - 0.33426, 1.7848 + 2.25432] = [-1.24566, 4.03912]
  //         p = [0.886 + 0.124566, -2.152 - 0.403912] = [1.010566, -2.555912]
  set_grad(p, {-1, 2});
  opt.step();
  require_values(p.tensor, {1.010566, -2.555912}, 1e-12);
  require_values(entry(opt.state_dict(), "state.p.momentum_buffer"), {-0.3714, 2.5048}, 1e-12);
}

TEST_CASE("sgd: float32 parameters follow the float64 result") {
  const F64AndF32Runs run = step_f64_and_f32([](const std::vector<NamedParameter>& params) {
    return std::make_unique<SGD>(params,
                                 SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true, .weight_decay = 0.01});
  });
  CHECK(run.p32.tensor.dtype() == kF32);
  require_close(run.p32.tensor, run.p64.tensor, 1e-5, 1e-5);
}

TEST_CASE("sgd: a large parameter (the threaded loop) gets the same update everywhere") {
  const int64_t n = 70000;  // above kParallelGrain
  NamedParameter p = param("p", std::vector<double>(n, 1));
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9});
  // step 1: buf = 2, p = 1 - 0.2 = 0.8;  step 2: buf = 0.9 * 2 + 2 = 3.8, p = 0.8 - 0.38 = 0.42
  set_grad(p, std::vector<double>(n, 2));
  opt.step();
  set_grad(p, std::vector<double>(n, 2));
  opt.step();
  require_values(p.tensor, std::vector<double>(n, 0.42), 1e-12);
}

TEST_CASE("sgd: bad options are tg::Errors") {
  NamedParameter p = param("p", {1});
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = -0.1}), "sgd: lr of group '0' must be >= 0, got -0.1", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.weight_decay = -1}), "sgd: weight_decay of group '0' must be >= 0, got -1", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.momentum = -0.5}), "sgd: momentum must be >= 0, got -0.5", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.dampening = 1.5}), "sgd: dampening must be in [0, 1], got 1.5", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.nesterov = true}), "sgd: momentum must be > 0 for Nesterov momentum, got 0", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.momentum = 0.9, .dampening = 0.1, .nesterov = true}),
                       "sgd: dampening must be 0 for Nesterov momentum, got 0.1", Error);
  CHECK_THROWS_WITH_AS(SGD({p}, {.lr = std::nan("")}), doctest::Contains("sgd: lr of group '0' must be >= 0"), Error);
}

TEST_CASE("sgd: CUDA matches CPU over a few steps") {
  if (!gpu_available_or_skip()) return;
  auto sgd = [](SGDOptions o) {
    return [o](const std::vector<NamedParameter>& params) { return std::make_unique<SGD>(params, o); };
  };
  require_cuda_optimizer_matches_cpu("sgd plain", sgd({.lr = 0.1}));
  require_cuda_optimizer_matches_cpu("sgd momentum, dampening, weight decay",
                                     sgd({.lr = 0.1, .momentum = 0.9, .dampening = 0.5, .weight_decay = 0.1}));
  require_cuda_optimizer_matches_cpu("sgd nesterov", sgd({.lr = 0.05, .momentum = 0.9, .nesterov = true}));
}
