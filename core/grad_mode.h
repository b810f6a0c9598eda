#pragma once
// Whether ops record on the tape (GradMode) and whether every value is checked for NaN/Inf
// (AnomalyMode). Both are per thread; the guards restore the previous setting.
namespace tg {

struct GradMode {
  static bool enabled();
  static void set_enabled(bool on);
};

class NoGradGuard {
 public:
  NoGradGuard() : previous_(GradMode::enabled()) { GradMode::set_enabled(false); }
  ~NoGradGuard() { GradMode::set_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  bool previous_;
};

// Anomaly mode: every recorded op's outputs are checked for NaN and +Inf (-Inf is allowed:
// it is how masks write "never attend here"), and every backward gradient for NaN and +-Inf.
// The error names the tape entry, the op and its inputs' shapes.
struct AnomalyMode {
  static bool enabled();
  static void set_enabled(bool on);
};

class AnomalyGuard {
 public:
  explicit AnomalyGuard(bool on = true) : previous_(AnomalyMode::enabled()) { AnomalyMode::set_enabled(on); }
  ~AnomalyGuard() { AnomalyMode::set_enabled(previous_); }
  AnomalyGuard(const AnomalyGuard&) = delete;
  AnomalyGuard& operator=(const AnomalyGuard&) = delete;

 private:
  bool previous_;
};

}  // namespace tg
