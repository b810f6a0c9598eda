
#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("lr_schedule: constant and linear warmup") {
  LrSchedule c = constant_lr(0.1);
  CHECK(c(1) == 0.1);
  CHECK(c(1000) == 0.1);
  LrSchedule w = linear_warmup(1.0, 4);  // step / 4 up to step 4, then 1
  CHECK(w(1) == 0.25);
  CHECK(w(2) == 0.5);
  CHECK(w(3) == 0.75);
  CHECK(w(4) == 1.0);
  CHECK(w(10) == 1.0);
  CHECK(linear_warmup(0.5, 0)(1) == 0.5);
}

TEST_CASE("lr_schedule: warmup then cosine decay to min_lr") {
  LrSchedule s = warmup_cosine(1.0, 2, 6, 0.1);
  CHECK(s(1) == 0.5);  // warmup: 1.0 * 1 / 2
  CHECK(s(2) == 1.0);  // peak
  // step 3: progress (3 - 2) / (6 - 2) = 1/4: 0.1 + 0.9 * (1 + cos(pi/4)) / 2 = 0.1 + 0.9 * 0.853553... = 0.868198...
  CHECK(s(3) == doctest::Approx(0.8681980515339464).epsilon(1e-14));
  CHECK(s(4) == doctest::Approx(0.55).epsilon(1e-14));  // progress 1/2: 0.1 + 0.9 / 2
  CHECK(s(6) == doctest::Approx(0.1).epsilon(1e-14));   // progress 1: min_lr
  CHECK(s(7) == 0.1);
  CHECK(s(1000) == 0.1);
  CHECK(warmup_cosine(2.0, 0, 4)(4) == doctest::Approx(0).scale(1));  // no warmup; min_lr 0
  CHECK(warmup_cosine(2.0, 0, 4)(2) == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("lr_schedule: noam") {
  LrSchedule s = noam(16, 4);  // 16^-0.5 = 0.25; 4^-1.5 = 1/8
  CHECK(s(1) == doctest::Approx(0.25 * 0.125).epsilon(1e-14));     // min(1, 1/8)
  CHECK(s(2) == doctest::Approx(0.25 * 0.25).epsilon(1e-14));      // min(0.707, 2/8)
  CHECK(s(4) == doctest::Approx(0.25 * 0.5).epsilon(1e-14));       // min(0.5, 4/8): the peak
  CHECK(s(16) == doctest::Approx(0.25 * 0.25).epsilon(1e-14));     // min(0.25, 2)
  CHECK(s(100) == doctest::Approx(0.25 * 0.1).epsilon(1e-14));     // min(0.1, 12.5)
  CHECK(noam(16, 4, 2)(4) == doctest::Approx(0.25).epsilon(1e-14));  // factor 2
}

TEST_CASE("lr_schedule: the scheduler sets every group's lr before each step") {
  NamedParameter a = param("a", {1}), b = param("b", {1});
  SGD opt({ParamGroup{"x", {a}, 5.0, {}}, ParamGroup{"y", {b}, 7.0, {}}});
  Scheduler sched(opt, linear_warmup(1.0, 4));
  CHECK(*opt.groups()[0].lr == 5.0);  // untouched until the first step()
  CHECK(sched.step() == 0.25);
  CHECK(*opt.groups()[0].lr == 0.25);
  CHECK(*opt.groups()[1].lr == 0.25);
  set_grad(a, {1});
  opt.step();
  require_values(a.tensor, {0.75}, 1e-12);  // 1 - 0.25 * 1
  CHECK(sched.step() == 0.5);
  CHECK(sched.step_count() == 2);
  CHECK(*opt.groups()[1].lr == 0.5);
}

TEST_CASE("lr_schedule: bad arguments are tg::Errors") {
  CHECK_THROWS_WITH_AS(constant_lr(-1), "constant_lr: lr must be >= 0, got -1", Error);
  CHECK_THROWS_WITH_AS(linear_warmup(-0.1, 3), "linear_warmup: lr must be >= 0, got -0.1", Error);
  CHECK_THROWS_WITH_AS(linear_warmup(0.1, -3), "linear_warmup: warmup_steps must be >= 0, got -3", Error);
  CHECK_THROWS_WITH_AS(warmup_cosine(0.1, 5, 5), "warmup_cosine: total_steps must be > warmup_steps, got 5", Error);
  CHECK_THROWS_WITH_AS(warmup_cosine(0.1, 1, 5, 0.2), "warmup_cosine: min_lr must be in [0, lr], got 0.2", Error);
  CHECK_THROWS_WITH_AS(noam(0, 4), "noam: d_model must be >= 1, got 0", Error);
  CHECK_THROWS_WITH_AS(noam(16, 0), "noam: warmup_steps must be >= 1, got 0", Error);
  CHECK_THROWS_WITH_AS(noam(16, 4, 0), "noam: factor must be > 0, got 0", Error);
  CHECK_THROWS_WITH_AS(noam(16, 4)(0), "noam: steps count from 1, got step 0", Error);
  CHECK_THROWS_WITH_AS(constant_lr(0.1)(-2), "constant_lr: steps count from 1, got step -2", Error);
  SGD opt({param("p", {1})});
  CHECK_THROWS_WITH_AS(Scheduler(opt, LrSchedule()), "scheduler: the schedule is empty", Error);
}
