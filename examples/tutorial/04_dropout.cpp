// docs/tutorial.md, "Dropout": active in training, the identity after eval().
#include <tapegrad.h>

int main() {
  using namespace tg;
  manual_seed(0);
  const double p = 0.25;
  nn::Dropout dropout(p);
  Tensor x = ones({10000});

  Tensor trained = dropout.forward(x);  // modules start in training mode
  fmt::print("training: kept values scaled to {:.4f} = 1 / (1 - p)\n", max(trained).item());
  fmt::print("training: {:.3f} of the values kept, mean {:.3f}\n", mean(mul(trained, 1 - p)).item(),
             mean(trained).item());

  dropout.eval();
  Tensor evaluated = dropout.forward(x);
  fmt::print("eval:     min {:.1f}, max {:.1f}: the identity\n", -max(neg(evaluated)).item(), max(evaluated).item());
}
