// A gradient penalty that trains: a small classifier of 2-D points (inside or outside a circle)
// with loss = cross_entropy + lambda * mean ||d cross_entropy_i / d x_i||^2. The penalty needs the
// gradient with respect to the inputs as part of the loss: tg::grad with create_graph, then one
// backward through both. The same model is trained without the penalty and with it; both must
// classify well, and the penalised one must end with the smaller input gradients (exit 1 if not).
#include <tapegrad.h>

namespace {

constexpr int64_t n = 256;

struct Outcome {
  double accuracy, penalty;
};

Outcome train_classifier(const tg::Tensor& points, const std::vector<int64_t>& inside, double lambda) {
  using namespace tg;
  manual_seed(1);  // the same initial weights for every lambda
  nn::Linear hidden(2, 32), out(32, 2);
  std::vector<NamedParameter> params;
  for (const auto& [prefix, layer] : {std::pair{"hidden.", &hidden}, std::pair{"out.", &out}})
    for (const auto& [name, p] : layer->named_parameters()) params.push_back({prefix + name, p});
  AdamW opt(params, {.lr = 0.02, .weight_decay = 0.0});
  const Tensor labels = tensor_i64(inside);

  Outcome outcome{};
  for (int step = 0; step <= 300; ++step) {
    Tensor x = points.detach().requires_grad_();
    Tensor logits = out.forward(relu(hidden.forward(x)));
    Tensor ce = cross_entropy(logits, labels);
    // d ce / d x (n,2), itself on the tape: n^2 ||d ce / d x_i||^2 summed over i, / n, is the
    // mean over points of each point's own loss gradient squared.
    Tensor dx = grad({ce}, {x}, {}, {.create_graph = true})[0];
    Tensor penalty = mul(sum(mul(dx, dx)), static_cast<double>(n));
    Tensor loss = add(ce, mul(penalty, lambda));
    opt.zero_grad();
    loss.backward();
    opt.step();

    int64_t right = 0;
    const std::vector<float> l = logits.to_vector<float>();
    for (int64_t i = 0; i < n; ++i) right += ((l[2 * i + 1] > l[2 * i]) == (inside[i] == 1));
    outcome = {static_cast<double>(right) / n, penalty.item()};
    if (step % 100 == 0)
      fmt::print("lambda {:.1f}  step {:3}  cross-entropy {:.4f}  penalty {:.4f}  accuracy {:.3f}\n", lambda, step,
                 ce.item(), outcome.penalty, outcome.accuracy);
  }
  return outcome;
}

}  // namespace

int main() {
  using namespace tg;
  manual_seed(0);
  const Tensor points = sub(mul(rand({n, 2}), 2.0), 1.0);  // uniform in [-1, 1)^2
  const std::vector<float> xy = points.to_vector<float>();
  std::vector<int64_t> inside;
  for (int64_t i = 0; i < n; ++i) inside.push_back(xy[2 * i] * xy[2 * i] + xy[2 * i + 1] * xy[2 * i + 1] < 0.5);

  const Outcome plain = train_classifier(points, inside, 0.0), penalised = train_classifier(points, inside, 0.1);
  const bool ok = plain.accuracy >= 0.9 && penalised.accuracy >= 0.9 && penalised.penalty < 0.5 * plain.penalty;
  fmt::print("without the penalty: accuracy {:.3f}, input gradients {:.4f}; with it: accuracy {:.3f}, input "
             "gradients {:.4f}: {}\n",
             plain.accuracy, plain.penalty, penalised.accuracy, penalised.penalty,
             ok ? "both learned, and the penalty made the classifier smoother" : "DID NOT TRAIN AS EXPECTED");
  return ok ? 0 : 1;
}
