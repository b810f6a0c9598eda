#pragma once
// Numerics: which version of tapegrad's float32 CPU arithmetic, and of dropout's draw, an op uses, per thread.
//
// A faster formula for the same function (a shorter polynomial for erf, say) changes a result's
// last bits, and with them every later step of a training run. A run's bits depend only on its
// config (docs/design.md, "Determinism"), so the version is part of the config: a run keeps the
// version it started with, and a checkpoint written before versions existed is version 1.
//   1  gelu (float32, CPU): erf_vec, a series near 0 and Abramowitz and Stegun's 7.1.26 with an
//      exp and a division elsewhere, within 6 ulps of erf; its backward's Phi(x) + x phi(x) with
//      erf_vec and exp_vec
//   2  gelu: erf_polynomial (ops/common/vec_math.h), two minimax polynomials and no exp or
//      division, within 2 ulps; its backward's Phi(x) + x phi(x) by two polynomials of its own
//      (ops/gelu/gelu_cpu.cpp)
//   3  dropout's draw (every op that drops, on the CPU and the GPU alike, any dtype): 16 random
//      bits per element where p is in [2^-8, 1 - 2^-8], so one Philox call decides 8 elements
//      instead of 4; the kept fraction's expectation is within 2^-16 of 1 - p (reserve_dropout,
//      ops/dropout/dropout.h)
// Every other op rounds the same in all of them. float64 and the GPU kernels round the same in
// every version (libm's functions); only the draw of version 3 follows the version there too.
//
// An op that rounds by version reads numerics() when it is called and keeps it for its backward,
// so a gradient rounds as its forward did. A model runs its forward in its config's version
// (train::ModelConfig::numerics); anything else runs in the latest, unless a NumericsGuard says.
#include <cstdint>

namespace tg {

inline constexpr int64_t kFirstNumerics = 1;
inline constexpr int64_t kLatestNumerics = 3;

int64_t numerics();  // this thread's version

// Sets this thread's version for a scope. A version outside [kFirstNumerics, kLatestNumerics]
// throws tg::Error("numerics", ...).
class NumericsGuard {
 public:
  explicit NumericsGuard(int64_t version);
  ~NumericsGuard();
  NumericsGuard(const NumericsGuard&) = delete;
  NumericsGuard& operator=(const NumericsGuard&) = delete;

 private:
  int64_t previous_;
};

}  // namespace tg
