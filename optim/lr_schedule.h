#pragma once
// Learning-rate schedules: functions from the update number (step = 1, 2, ...: the update
// about to run) to the learning rate, and a Scheduler that applies one to an optimizer.
//
//   Scheduler sched(opt, warmup_cosine(3e-4, 100, 5000, 3e-5));
//   for (...) { loss.backward(); sched.step(); opt.step(); opt.zero_grad(); }
//
// A schedule gives the absolute lr, the same for every parameter group.
#include <cstdint>
#include <functional>

#include "optim/optimizer.h"

namespace tg {

using LrSchedule = std::function<double(int64_t step)>;  // step >= 1, else tg::Error

// lr at every step.
LrSchedule constant_lr(double lr);
// lr * step / warmup_steps while step < warmup_steps, then lr (warmup_steps = 0: constant).
LrSchedule linear_warmup(double lr, int64_t warmup_steps);
// Linear warmup to lr over warmup_steps, then cosine decay to min_lr at total_steps, then min_lr:
//   step <= warmup:          lr * step / warmup
//   warmup < step <= total:  min_lr + (lr - min_lr) * (1 + cos(pi * (step - warmup) / (total - warmup))) / 2
//   step > total:            min_lr
// 0 <= min_lr <= lr, 0 <= warmup_steps < total_steps.
LrSchedule warmup_cosine(double lr, int64_t warmup_steps, int64_t total_steps, double min_lr = 0);
// "Attention is all you need" (the "Noam" schedule):
//   factor * d_model^-0.5 * min(step^-0.5, step * warmup_steps^-1.5)
// Rises linearly for warmup_steps, peaks there, then decays as 1/sqrt(step).
LrSchedule noam(int64_t d_model, int64_t warmup_steps, double factor = 1);

class Scheduler {
 public:
  // Leaves the optimizer's lr alone until the first step().
  Scheduler(Optimizer& optimizer, LrSchedule schedule);
  // Advances to the next update and sets every group's lr to schedule(step); returns it.
  // Call it once before each optimizer.step().
  double step();
  int64_t step_count() const { return step_; }  // updates scheduled so far

  // Checkpoint: {"scheduler.step": int64 scalar}. load_state_dict restores the count (the
  // optimizer's own checkpoint restores its lr); missing / unexpected entries are tg::Errors.
  StateDict state_dict() const;
  void load_state_dict(const StateDict& dict);

 private:
  Optimizer& optimizer_;
  LrSchedule schedule_;
  int64_t step_ = 0;
};

}  // namespace tg
