#pragma once
// Whether ops record on the tape (GradMode) and whether every value is checked for NaN/Inf
// (AnomalyMode). Both are per thread; the guards restore the previous setting.
namespace tg {

struct GradMode {
  static bool enabled();
  static void set_enabled(bool on);
};

// Sets grad mode for a scope: off (NoGradGuard), or on (a backward that creates a graph).
class GradModeGuard {
 public:
  explicit GradModeGuard(bool on) : previous_(GradMode::enabled()) { GradMode::set_enabled(on); }
  ~GradModeGuard() { GradMode::set_enabled(previous_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool previous_;
};

class NoGradGuard : public GradModeGuard {
 public:
  NoGradGuard() : GradModeGuard(false) {}
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
