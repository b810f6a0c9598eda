#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "optim/adam.h"

namespace tg {

namespace {

// What one Adam(W) step multiplies and adds, in T.
template <class T>
struct AdamScalars {
  T beta1, beta2, eps, l2, shrink, step_size, bias_correction2_sqrt;
};

// The update of p, m, v (n) from g (n), in place, with no branch per element, so that the loop
// vectorises (for float in TG_VEC_CLONES chunks): p * 1 is p for every p (Adam), and the L2 term
// is a compile-time choice (g + 0 * p would turn an infinite p into NaN).
template <bool kL2, class T>
[[gnu::always_inline]] inline void adam_range_body(T* p, T* m, T* v, const T* grad, int64_t n,
                                                   const AdamScalars<T>& s) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) {
    T g = grad[i];
    if constexpr (kL2) g += s.l2 * p[i];
    const T mi = s.beta1 * m[i] + (1 - s.beta1) * g, vi = s.beta2 * v[i] + (1 - s.beta2) * g * g;
    m[i] = mi;
    v[i] = vi;
    p[i] = p[i] * s.shrink - s.step_size * (mi / (std::sqrt(vi) / s.bias_correction2_sqrt + s.eps));
  }
}

TG_VEC_CLONES void adam_range(float* p, float* m, float* v, const float* grad, int64_t n,
                              const AdamScalars<float>& s) {
  if (s.l2 != 0) return adam_range_body<true>(p, m, v, grad, n, s);
  adam_range_body<false>(p, m, v, grad, n, s);
}
void adam_range(double* p, double* m, double* v, const double* grad, int64_t n, const AdamScalars<double>& s) {
  if (s.l2 != 0) return adam_range_body<true>(p, m, v, grad, n, s);
  adam_range_body<false>(p, m, v, grad, n, s);
}

// One parameter's update: its buffers and the scalars of its step.
template <class T>
struct AdamTensors {
  T *p, *m, *v;
  const T* g;
  int64_t n;
  AdamScalars<T> s;
};

template <class T>
AdamTensors<T> adam_tensors(const ParamUpdate& u, const AdamOptions& options, double lr, double weight_decay,
                            bool decoupled) {
  // Per-step scalars in double, as PyTorch computes them in Python floats.
  const double bias_correction1 = 1 - std::pow(options.beta1, static_cast<double>(u.state.step));
  const double bias_correction2 = 1 - std::pow(options.beta2, static_cast<double>(u.state.step));
  const AdamScalars<T> s{static_cast<T>(options.beta1),
                         static_cast<T>(options.beta2),
                         static_cast<T>(options.eps),
                         static_cast<T>(decoupled ? 0 : weight_decay),
                         static_cast<T>(decoupled ? 1 - lr * weight_decay : 1),
                         static_cast<T>(lr / bias_correction1),
                         static_cast<T>(std::sqrt(bias_correction2))};
  return {u.param.tensor.data<T>(), u.state.buffers[0].data<T>(), u.state.buffers[1].data<T>(), u.grad.data<T>(),
          u.param.tensor.numel(), s};
}

constexpr int64_t kChunk = 4096;

// Called by every thread of the team: each parameter's chunks shared among the threads, with
// no barrier between parameters (each element's update is independent of every other's).
template <class T>
void adam_team(const std::vector<AdamTensors<T>>& params) {
  for (const AdamTensors<T>& t : params) {
#pragma omp for schedule(static) nowait
    for (int64_t first = 0; first < t.n; first += kChunk)
      adam_range(t.p + first, t.m + first, t.v + first, t.g + first, std::min(kChunk, t.n - first), t.s);
  }
}

}  // namespace

void adam_update_cpu(const std::vector<ParamUpdate>& updates, const AdamOptions& options, double lr,
                     double weight_decay, bool decoupled) {
  std::vector<AdamTensors<float>> floats;
  std::vector<AdamTensors<double>> doubles;
  int64_t elements = 0;
  for (const ParamUpdate& u : updates) {
    dispatch_floating(u.param.tensor.dtype(), decoupled ? "adamw" : "adam", [&](auto zero) {
      using T = decltype(zero);
      auto& list = [&]() -> std::vector<AdamTensors<T>>& {
        if constexpr (std::is_same_v<T, float>) return floats;
        else return doubles;
      }();
      list.push_back(adam_tensors<T>(u, options, lr, weight_decay, decoupled));
    });
    elements += u.param.tensor.numel();
  }
  // Every parameter in one parallel region. A sqrt and a division per element: worth a second
  // thread at an eighth of the usual grain.
#pragma omp parallel if (elements > kParallelGrain / 8)
  {
    adam_team(floats);
    adam_team(doubles);
  }
}

}  // namespace tg
