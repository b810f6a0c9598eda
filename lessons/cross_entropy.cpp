// Lesson: cross-entropy and the gradient of the logits.
//   logits z (N,V), targets t (N)
//   loss = mean_n ( -log softmax(z_n)[t_n] ) = mean_n ( logsumexp(z_n) - z_n[t_n] )
//   dloss/dz_n = (softmax(z_n) - onehot(t_n)) / N
#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t N = 3, V = 5;  // positions, vocabulary
const std::vector<int64_t> kTargets = {1, 4, 0};

Tensor onehot() {
  std::vector<double> v(N * V, 0.0);
  for (int64_t n = 0; n < N; ++n) v[n * V + kTargets[n]] = 1;
  return tensor(v, {N, V}, kF64);
}

// dloss/dz by central differences, one logit at a time: (loss(z + eps) - loss(z - eps)) / 2 eps.
Tensor numeric_gradient(const Tensor& logits, const Tensor& targets) {
  NoGradGuard no_tape;
  constexpr double eps = 1e-6;
  std::vector<double> z = values(logits), grad(z.size());
  for (size_t i = 0; i < z.size(); ++i) {
    std::vector<double> plus = z, minus = z;
    plus[i] += eps, minus[i] -= eps;
    double up = cross_entropy(tensor(plus, {N, V}, kF64), targets).item();
    double down = cross_entropy(tensor(minus, {N, V}, kF64), targets).item();
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
  Tensor logits = log.input("logits", randn({N, V}, kF64, kCPU, gen).requires_grad_());
  Tensor targets = log.input("targets", tensor_i64(kTargets));
  log.show("logits", logits);
  log.show("targets", targets);

  log.say("Written out with elementary ops: log_softmax (stable: z - logsumexp(z)), pick each target's entry by "
          "multiplying with a one-hot matrix and summing, negate and average.");
  Tensor log_probs = log_softmax(logits, -1).set_name("log_probs");
  log.show("log_probs", log_probs);
  Tensor picked = sum(mul(log_probs, onehot()), {1}).set_name("picked");
  Tensor composed = mul(mean(picked), -1.0).set_name("composed loss");
  log.show("composed loss", composed);

  log.say("tapegrad's cross_entropy op does the same in one entry, and its backward rule is one line.");
  Tensor loss = cross_entropy(logits, targets).set_name("loss");
  log.show("loss", loss);
  log.fact("cross_entropy equals the composed -mean(log_softmax picked at the targets) to 1e-12",
           std::abs(loss.item() - composed.item()) < 1e-12);

  log.say("Backward: dL/dz_n = (softmax(z_n) - onehot(t_n)) / N. The probability of every wrong class is "
          "pushed down by its own size, the right class up by 1 - p: the gradient of each row sums to 0.");
  log.backward_from(loss);
  Tensor grad = logits.grad();
  log.show("dL/dlogits", grad);
  NoGradGuard side_calculation;
  Tensor expected = mul(sub(softmax(logits, -1), onehot()), 1.0 / N);
  log.show("(softmax - onehot) / N", expected);
  log.fact("the logits' gradient equals (softmax(logits) - onehot) / N to 1e-12", max_abs_diff(grad, expected) < 1e-12);
  Tensor numeric = numeric_gradient(logits, targets);
  log.show("numeric gradient", numeric);
  log.fact("it matches central finite differences (eps 1e-6) to 1e-8", max_abs_diff(grad, numeric) < 1e-8);
  log.fact("each row of the gradient sums to 0", max_abs_diff(sum(grad, {1}), zeros({N}, kF64)) < 1e-12);
}

}  // namespace tg::lessons
