#include "optim/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include "core/factories.h"

namespace tg {

namespace {

void check_arg(bool ok, const char* op, const char* what, const char* rule, double value) {
  if (!ok) throw Error(op, fmt::format("{} must be {}, got {}", what, rule, value));
}

void check_step(int64_t step, const char* op) {
  if (step < 1) throw Error(op, fmt::format("steps count from 1, got step {}", step));
}

}  // namespace

LrSchedule constant_lr(double lr) {
  check_arg(lr >= 0, "constant_lr", "lr", ">= 0", lr);
  return [lr](int64_t step) {
    check_step(step, "constant_lr");
    return lr;
  };
}

LrSchedule linear_warmup(double lr, int64_t warmup_steps) {
  check_arg(lr >= 0, "linear_warmup", "lr", ">= 0", lr);
  check_arg(warmup_steps >= 0, "linear_warmup", "warmup_steps", ">= 0", static_cast<double>(warmup_steps));
  return [=](int64_t step) {
    check_step(step, "linear_warmup");
    return step < warmup_steps ? lr * static_cast<double>(step) / static_cast<double>(warmup_steps) : lr;
  };
}

LrSchedule warmup_cosine(double lr, int64_t warmup_steps, int64_t total_steps, double min_lr) {
  check_arg(lr >= 0, "warmup_cosine", "lr", ">= 0", lr);
  check_arg(min_lr >= 0 && min_lr <= lr, "warmup_cosine", "min_lr", "in [0, lr]", min_lr);
  check_arg(warmup_steps >= 0, "warmup_cosine", "warmup_steps", ">= 0", static_cast<double>(warmup_steps));
  check_arg(total_steps > warmup_steps, "warmup_cosine", "total_steps", "> warmup_steps",
            static_cast<double>(total_steps));
  return [=](int64_t step) {
    check_step(step, "warmup_cosine");
    if (step <= warmup_steps) return lr * static_cast<double>(step) / static_cast<double>(warmup_steps);
    if (step > total_steps) return min_lr;
    const double progress = static_cast<double>(step - warmup_steps) / static_cast<double>(total_steps - warmup_steps);
    return min_lr + (lr - min_lr) * (1 + std::cos(std::numbers::pi * progress)) / 2;
  };
}

LrSchedule noam(int64_t d_model, int64_t warmup_steps, double factor) {
  check_arg(d_model >= 1, "noam", "d_model", ">= 1", static_cast<double>(d_model));
  check_arg(warmup_steps >= 1, "noam", "warmup_steps", ">= 1", static_cast<double>(warmup_steps));
  check_arg(factor > 0, "noam", "factor", "> 0", factor);
  return [=](int64_t step) {
    check_step(step, "noam");
    const double s = static_cast<double>(step), w = static_cast<double>(warmup_steps);
    return factor * std::pow(static_cast<double>(d_model), -0.5) * std::min(std::pow(s, -0.5), s * std::pow(w, -1.5));
  };
}

Scheduler::Scheduler(Optimizer& optimizer, LrSchedule schedule) : optimizer_(optimizer), schedule_(std::move(schedule)) {
  if (!schedule_) throw Error("scheduler", "the schedule is empty");
}

double Scheduler::step() {
  const double lr = schedule_(step_ + 1);
  optimizer_.set_lr(lr);
  ++step_;
  return lr;
}

StateDict Scheduler::state_dict() const { return {{"scheduler.step", scalar(static_cast<double>(step_), kI64)}}; }

void Scheduler::load_state_dict(const StateDict& dict) {
  std::vector<std::string> keys;
  for (const auto& [key, t] : dict) keys.push_back(key);
  if (keys != std::vector<std::string>{"scheduler.step"})
    throw Error("scheduler", fmt::format("load_state_dict: expected exactly the entry 'scheduler.step', got [{}]",
                                         fmt::join(keys, ", ")));
  const Tensor& t = dict[0].second;
  if (!t.defined() || t.numel() != 1)
    throw Error("scheduler", "load_state_dict: entry 'scheduler.step' must hold one number");
  const double step = t.item();
  if (!(step >= 0) || step != std::floor(step))
    throw Error("scheduler", fmt::format("load_state_dict: entry 'scheduler.step' must be a whole number >= 0, got {}", step));
  step_ = static_cast<int64_t>(step);
}

}  // namespace tg
