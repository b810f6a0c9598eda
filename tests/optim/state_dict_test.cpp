#include <functional>
#include <tuple>
#include <memory>

#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// A small model: a float64 matrix, a float32 bias, and "u", which gets gradients only from
// step 3 on (so it has no state when the checkpoint below is taken).
std::vector<NamedParameter> make_params() {
  std::vector<NamedParameter> params;
  Generator gen(7);
  for (auto [name, shape, dtype] : {std::tuple{"w", Shape{2, 3}, kF64}, {"b", Shape{3}, kF32}, {"u", Shape{2}, kF64}}) {
    Tensor t = rand(shape, dtype, kCPU, gen, -1, 1);
    t.requires_grad_();
    params.push_back({name, t});
  }
  return params;
}

void set_step_grads(const std::vector<NamedParameter>& params, int step) {
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor t = params[i].tensor;
    t.zero_grad();
    if (params[i].name == "u" && step < 3) continue;
    Generator gen(100 * step + i);
    t.backward(rand(t.shape(), t.dtype(), kCPU, gen, -1, 1));
  }
}

std::vector<double> values(const Tensor& t) { return to_dtype_copy(t, kF64).to_vector<double>(); }

// Builds an optimizer over `params`; `other_options` picks different options, which
// load_state_dict must replace by the saved ones.
using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(const std::vector<NamedParameter>&, bool other_options)>;

// One optimizer runs 4 steps; another runs 2 and is saved; a fresh one (on parameters holding
// the saved values) loads the checkpoint and runs steps 3 and 4. All end bit for bit equal.
void check_round_trip(const MakeOptimizer& make) {
  const LrSchedule schedule = warmup_cosine(0.1, 2, 10, 0.01);
  auto run = [&](const std::vector<NamedParameter>& params, Optimizer& opt, Scheduler& sched, int from, int to) {
    for (int step = from; step <= to; ++step) {
      set_step_grads(params, step);
      sched.step();
      opt.step();
    }
  };
  std::vector<NamedParameter> a_params = make_params(), b_params = make_params();
  auto a = make(a_params, false), b = make(b_params, false);
  Scheduler a_sched(*a, schedule), b_sched(*b, schedule);
  run(a_params, *a, a_sched, 1, 4);
  run(b_params, *b, b_sched, 1, 2);
  const StateDict saved = b->state_dict(), saved_sched = b_sched.state_dict();
  const std::vector<double> saved_w_state = values(saved.back().second);

  std::vector<NamedParameter> c_params;
  for (const NamedParameter& p : b_params) {
    Tensor t = contiguous_copy(p.tensor.detach());
    t.requires_grad_();
    c_params.push_back({p.name, t});
  }
  auto c = make(c_params, true);
  Scheduler c_sched(*c, schedule);
  c->load_state_dict(saved);
  c_sched.load_state_dict(saved_sched);
  CHECK(c_sched.step_count() == 2);
  CHECK(keys(c->state_dict()) == keys(saved));
  run(c_params, *c, c_sched, 3, 4);
  run(b_params, *b, b_sched, 3, 4);  // the saved copy must not have disturbed b

  for (size_t i = 0; i < a_params.size(); ++i) {
    INFO("parameter ", a_params[i].name);
    CHECK(values(c_params[i].tensor) == values(a_params[i].tensor));
    CHECK(values(b_params[i].tensor) == values(a_params[i].tensor));
  }
  StateDict a_state = a->state_dict(), c_state = c->state_dict();
  REQUIRE(keys(a_state) == keys(c_state));
  for (size_t i = 0; i < a_state.size(); ++i) CHECK(values(a_state[i].second) == values(c_state[i].second));
  CHECK(values(saved.back().second) == saved_w_state);  // a checkpoint is a copy
}

}  // namespace

TEST_CASE("state_dict: sgd (nesterov, groups) resumes bit for bit") {
  check_round_trip([](const std::vector<NamedParameter>& params, bool other) {
    SGDOptions o{.lr = 0.1, .momentum = 0.9, .nesterov = true, .weight_decay = 0.01};
    if (other) o = {.lr = 0.5, .momentum = 0.5, .weight_decay = 0.2};
    return std::make_unique<SGD>(weight_decay_groups(params), o);
  });
}

TEST_CASE("state_dict: adam resumes bit for bit") {
  check_round_trip([](const std::vector<NamedParameter>& params, bool other) {
    AdamOptions o{.lr = 0.1, .weight_decay = 0.01};
    if (other) o = {.lr = 0.3, .beta1 = 0.8, .beta2 = 0.99, .eps = 1e-6};
    return std::make_unique<Adam>(params, o);
  });
}

TEST_CASE("state_dict: adamw (groups) resumes bit for bit") {
  check_round_trip([](const std::vector<NamedParameter>& params, bool other) {
    AdamWOptions o{.lr = 0.1, .beta1 = 0.8, .weight_decay = 0.1};
    if (other) o = {.lr = 0.3, .eps = 1e-3};
    return std::make_unique<AdamW>(weight_decay_groups(params), o);
  });
}

TEST_CASE("state_dict: load errors name the entry and leave the optimizer unchanged") {
  NamedParameter w = param("w", {1, 2, 3, 4}, {2, 2}), b = param("b", {1, 2});
  Adam opt({w, b}, {.lr = 0.1});
  set_grad(w, {1, 1, 1, 1});
  set_grad(b, {1, 1});
  opt.step();
  const StateDict good = opt.state_dict();
  auto with = [&](const std::string& key, const Tensor& t) {
    StateDict d = good;
    for (auto& [k, v] : d)
      if (k == key) v = t;
    return d;
  };
  auto without = [&](const std::string& key) {
    StateDict d;
    for (const auto& [k, v] : good)
      if (k != key) d.emplace_back(k, v);
    return d;
  };
  CHECK_THROWS_WITH_AS(opt.load_state_dict(without("state.w.exp_avg_sq")),
                       "adam: load_state_dict: missing entries: state.w.exp_avg_sq", Error);
  StateDict extra = without("options.eps");
  extra.emplace_back("state.v.step", scalar(1, kI64));
  CHECK_THROWS_WITH_AS(opt.load_state_dict(extra), "adam: load_state_dict: missing entries: options.eps", Error);
  extra = good;
  extra.emplace_back("state.v.step", scalar(1, kI64));
  CHECK_THROWS_WITH_AS(opt.load_state_dict(extra), "adam: load_state_dict: unexpected entries: state.v.step", Error);
  StateDict both = without("state.b.exp_avg");
  both.emplace_back("state.v.step", scalar(1, kI64));
  CHECK_THROWS_WITH_AS(opt.load_state_dict(both),
                       "adam: load_state_dict: missing entries: state.b.exp_avg; unexpected entries: state.v.step", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("state.w.exp_avg", zeros({3}, kF64))),
                       "adam: load_state_dict: entry 'state.w.exp_avg' is a (3,) float64 tensor but parameter 'w' is "
                       "(2,2) float64", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("state.b.exp_avg", tensor_i64({0, 0}))),
                       doctest::Contains("entry 'state.b.exp_avg' is a (2,) int64 tensor"), Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("options.beta1", zeros({2}))),
                       "adam: load_state_dict: entry 'options.beta1' must hold one number, got shape (2,)", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("state.w.step", scalar(0, kI64))),
                       "adam: load_state_dict: entry 'state.w.step' must be a whole number >= 1, got 0", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("state.w.step", scalar(1.5, kF64))),
                       "adam: load_state_dict: entry 'state.w.step' must be a whole number >= 1, got 1.5", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("state.w.step", Tensor())),
                       "adam: load_state_dict: entry 'state.w.step' is an undefined tensor", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("options.eps", scalar(0, kF64))), "adam: eps must be > 0, got 0", Error);
  CHECK_THROWS_WITH_AS(opt.load_state_dict(with("group.0.lr", scalar(-1, kF64))), "adam: group.0.lr must be >= 0, got -1",
                       Error);
  StateDict twice = good;
  twice.push_back(good.front());
  CHECK_THROWS_WITH_AS(opt.load_state_dict(twice), "adam: load_state_dict: entry 'options.beta1' appears twice", Error);

  SGD sgd({param("w", {1})});
  CHECK_THROWS_WITH_AS(opt.load_state_dict(sgd.state_dict()),
                       "adam: load_state_dict: missing entries: options.beta1, options.beta2, options.eps; unexpected "
                       "entries: options.dampening, options.momentum, options.nesterov", Error);

  // New options, a new lr and a bad buffer: the load fails and none of it is applied.
  StateDict bad = with("state.b.exp_avg_sq", zeros({5}, kF64));
  for (auto& [k, v] : bad) {
    if (k == "options.beta1") v = scalar(0.5, kF64);
    if (k == "group.0.lr") v = scalar(0.7, kF64);
    if (k == "state.w.exp_avg") v = zeros({2, 2}, kF64);
  }
  CHECK_THROWS_AS(opt.load_state_dict(bad), Error);
  CHECK(opt.adam_options().beta1 == 0.9);
  CHECK(*opt.groups()[0].lr == 0.1);
  const StateDict after = opt.state_dict();
  REQUIRE(keys(after) == keys(good));
  for (size_t i = 0; i < good.size(); ++i) CHECK(values(after[i].second) == values(good[i].second));

  // A float32 checkpoint loads into float64 parameters (converted).
  StateDict f32 = good;
  for (auto& [k, v] : f32) v = to_dtype_copy(v, kF32);
  opt.load_state_dict(f32);
  CHECK(entry(opt.state_dict(), "state.w.exp_avg").dtype() == kF64);
  CHECK(entry(opt.state_dict(), "state.w.step").item() == 1);
}

TEST_CASE("state_dict: scheduler checkpoint and its load errors") {
  NamedParameter p = param("p", {1});
  SGD opt({p});
  Scheduler sched(opt, linear_warmup(1.0, 4));
  sched.step();
  sched.step();
  CHECK(keys(sched.state_dict()) == std::vector<std::string>{"scheduler.step"});
  CHECK(sched.state_dict()[0].second.item() == 2);
  Scheduler fresh(opt, linear_warmup(1.0, 4));
  fresh.load_state_dict(sched.state_dict());
  CHECK(fresh.step_count() == 2);
  CHECK(fresh.step() == 0.75);  // step 3 of 4
  CHECK_THROWS_WITH_AS(fresh.load_state_dict({}),
                       "scheduler: load_state_dict: expected exactly the entry 'scheduler.step', got []", Error);
  CHECK_THROWS_WITH_AS(fresh.load_state_dict({{"scheduler.step", scalar(1, kI64)}, {"x", scalar(1)}}),
                       "scheduler: load_state_dict: expected exactly the entry 'scheduler.step', got [scheduler.step, x]",
                       Error);
  CHECK_THROWS_WITH_AS(fresh.load_state_dict({{"scheduler.step", scalar(-1, kI64)}}),
                       "scheduler: load_state_dict: entry 'scheduler.step' must be a whole number >= 0, got -1", Error);
  CHECK_THROWS_WITH_AS(fresh.load_state_dict({{"scheduler.step", zeros({2})}}),
                       "scheduler: load_state_dict: entry 'scheduler.step' must hold one number", Error);
  CHECK(fresh.step_count() == 3);
}
