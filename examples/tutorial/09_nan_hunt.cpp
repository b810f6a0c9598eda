// docs/tutorial.md, "Hunting a NaN": anomaly mode names the op that made it.
#include <tapegrad.h>

int main() {
  using namespace tg;
  manual_seed(0);
  Tensor scores = randn({3, 3}).requires_grad_();
  Tensor keep = tensor({1, 0, 0, 1, 1, 0, 1, 1, 1}, {3, 3});  // float, 1 = keep
  auto loss_of = [&] {
    Tensor additive = mul(sub(1.0, keep), -INFINITY);  // the bug: 0 * -inf = NaN
    return sum(softmax(add(scores, additive), -1));
  };
  fmt::print("loss = {}\n", loss_of().item());
  try {
    AnomalyGuard anomaly;
    loss_of();
  } catch (const Error& e) {
    fmt::print("{}\n", e.what());
  }
}
