// Lesson: cross-entropy and the gradient of the logits.
//   logits z (N,V), targets t (N), label smoothing eps (a setting, 0 by default)
//   target distribution q_n = (1 - eps) onehot(t_n) + eps / V
//   loss = mean_n ( -sum_v q_n,v log softmax(z_n)_v )    (eps = 0: mean_n ( logsumexp(z_n) - z_n[t_n] ))
//   dloss/dz_n = (softmax(z_n) - q_n) / N
#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t N = 3, V = 5;  // positions, vocabulary
const std::vector<int64_t> kTargets = {1, 4, 0};

// Each position's target distribution: its target's one-hot (targets (N), as a student may have
// changed them), with `eps` of it spread evenly over the V classes.
Tensor target_distribution(const Tensor& targets, double eps) {
  std::vector<double> v(N * V, eps / V);
  const std::vector<double> t = values(targets);
  for (int64_t n = 0; n < N; ++n) {
    if (!(t[n] >= 0 && t[n] < V))
      throw Error("lesson", fmt::format("cross_entropy: targets[{}] = {} is not a class: this lesson's targets are "
                                        "classes 0 to {}", n, t[n], V - 1));
    v[n * V + static_cast<int64_t>(t[n])] += 1 - eps;
  }
  return tensor(v, {N, V}, kF64);
}

// dloss/dz by central differences, one logit at a time: (loss(z + eps) - loss(z - eps)) / 2 eps.
Tensor numeric_gradient(const Tensor& logits, const Tensor& targets, const CrossEntropyOptions& options) {
  NoGradGuard no_tape;
  constexpr double eps = 1e-6;
  std::vector<double> z = values(logits), grad(z.size());
  for (size_t i = 0; i < z.size(); ++i) {
    std::vector<double> plus = z, minus = z;
    plus[i] += eps, minus[i] -= eps;
    double up = cross_entropy(tensor(plus, {N, V}, kF64), targets, options).item();
    double down = cross_entropy(tensor(minus, {N, V}, kF64), targets, options).item();
    grad[i] = (up - down) / (2 * eps);
  }
  return tensor(grad, {N, V}, kF64);
}
}  // namespace

void cross_entropy_lesson(LessonLog& log) {
  Generator gen(16);
  log.say(fmt::format(
      "A language model ends in logits: one score per vocabulary entry (V={}) at each of N={} positions. "
      "Cross-entropy is the negative log of the probability softmax gives the right answer, averaged over the "
      "positions. The logits are float64 here so that the numerical check below is exact to 1e-8.",
      V, N));
  const double eps = log.setting("label_smoothing", 0, {0, 0.1, 0.2, 0.5},
                                 "the share of each target spread evenly over the V classes");
  Tensor logits = log.input("logits", randn({N, V}, kF64, kCPU, gen).requires_grad_());
  Tensor targets = log.input("targets", tensor_i64(kTargets));
  log.show("logits", logits);
  log.show("targets", targets);
  Tensor q = target_distribution(targets, eps).set_name("q");
  if (eps > 0) {
    log.say(fmt::format("With label smoothing {}, each position's target is not a one-hot row but q = {} onehot + "
                        "{}/V: every class gets {:.3g}, the right one {:.3g} more.",
                        eps, 1 - eps, eps, eps / V, 1 - eps));
    log.show("q", q);
  }

  log.say("Written out with elementary ops: log_softmax (stable: z - logsumexp(z)), pick each target's entry by "
          "multiplying with the target distribution (a one-hot matrix without smoothing) and summing, negate and "
          "average.");
  Tensor log_probs = log_softmax(logits, -1).set_name("log_probs");
  log.show("log_probs", log_probs);
  Tensor picked = sum(mul(log_probs, q), {1}).set_name("picked");
  Tensor composed = mul(mean(picked), -1.0).set_name("composed loss");
  log.show("composed loss", composed);

  log.say("tapegrad's cross_entropy op does the same in one entry, and its backward rule is one line.");
  const CrossEntropyOptions options{.label_smoothing = eps};
  Tensor loss = cross_entropy(logits, targets, options).set_name("loss");
  log.show("loss", loss);
  log.fact("cross_entropy equals the composed -mean(log_softmax picked at the targets) to 1e-12",
           std::abs(loss.item() - composed.item()) < 1e-12);

  log.say("Backward: dL/dz_n = (softmax(z_n) - q_n) / N. Without smoothing q_n is the one-hot row: the "
          "probability of every wrong class is pushed down by its own size, the right class up by 1 - p. Either way "
          "the gradient of each row sums to 0, as p and q each sum to 1.");
  log.backward_from(loss);
  Tensor grad = logits.grad();
  log.show("dL/dlogits", grad);
  NoGradGuard side_calculation;
  Tensor expected = mul(sub(softmax(logits, -1), q), 1.0 / N);
  log.show("(softmax - q) / N", expected);
  log.fact("the logits' gradient equals (softmax(logits) - q) / N to 1e-12", max_abs_diff(grad, expected) < 1e-12);
  Tensor numeric = numeric_gradient(logits, targets, options);
  log.show("numeric gradient", numeric);
  log.fact("it matches central finite differences (eps 1e-6) to 1e-8", max_abs_diff(grad, numeric) < 1e-8);
  log.fact("each row of the gradient sums to 0", max_abs_diff(sum(grad, {1}), zeros({N}, kF64)) < 1e-12);
}

}  // namespace tg::lessons
