// A gradient penalty that trains: a small classifier of 2-D points (inside or outside a circle)
// with loss = cross_entropy + lambda * mean ||d cross_entropy / d x||^2. The penalty needs the
// gradient with respect to the inputs as part of the loss: tg::grad with create_graph, then one
// backward through both. Exits 1 unless the classifier learns and the penalty falls.
#include <tapegrad.h>

int main() {
  using namespace tg;
  manual_seed(0);
  constexpr int64_t n = 256;
  constexpr double lambda = 0.1;
  const Tensor points = sub(mul(rand({n, 2}), 2.0), 1.0);  // uniform in [-1, 1)^2
  const std::vector<float> xy = points.to_vector<float>();
  std::vector<int64_t> inside;
  for (int64_t i = 0; i < n; ++i) inside.push_back(xy[2 * i] * xy[2 * i] + xy[2 * i + 1] * xy[2 * i + 1] < 0.5);
  const Tensor labels = tensor_i64(inside);

  nn::Linear hidden(2, 32), out(32, 2);
  std::vector<NamedParameter> params;
  for (nn::Linear* layer : {&hidden, &out})
    for (const auto& [name, p] : layer->named_parameters()) params.push_back({name, p});
  AdamW opt(params, {.lr = 0.02, .weight_decay = 0.0});

  double first_penalty = 0, penalty_value = 0, accuracy = 0;
  for (int step = 0; step <= 300; ++step) {
    Tensor x = points.detach().requires_grad_();
    Tensor logits = out.forward(relu(hidden.forward(x)));
    Tensor ce = cross_entropy(logits, labels);
    // d ce / d x, itself on the tape: its norm is part of what is minimised.
    Tensor dx = grad({ce}, {x}, {}, {.create_graph = true})[0];  // (n,2)
    Tensor penalty = mul(sum(mul(dx, dx)), static_cast<double>(n));  // mean over points of ||d ce_i / d x_i||^2
    Tensor loss = add(ce, mul(penalty, lambda));
    opt.zero_grad();
    loss.backward();
    opt.step();

    penalty_value = penalty.item();
    if (step == 0) first_penalty = penalty_value;
    int64_t right = 0;
    const std::vector<float> l = logits.to_vector<float>();
    for (int64_t i = 0; i < n; ++i) right += ((l[2 * i + 1] > l[2 * i]) == (inside[i] == 1));
    accuracy = static_cast<double>(right) / n;
    if (step % 100 == 0)
      fmt::print("step {:3}  cross-entropy {:.4f}  penalty {:.5f}  accuracy {:.3f}\n", step, ce.item(), penalty_value,
                 accuracy);
  }
  const bool ok = accuracy >= 0.9 && penalty_value < first_penalty;
  fmt::print("{}\n", ok ? "the classifier learned and its gradient penalty fell" : "DID NOT TRAIN");
  return ok ? 0 : 1;
}
