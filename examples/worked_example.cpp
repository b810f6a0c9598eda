// The README's first program: a forward pass, the tape, backward step by step, a gradient check.
#include <tapegrad.h>

int main() {
  using namespace tg;
  manual_seed(0);
  Tensor x = randn({4, 3}).set_name("x");                     // a batch of 4 inputs
  Tensor w = randn({3, 2}).set_name("w").requires_grad_();    // parameters
  Tensor b = zeros({2}).set_name("b").requires_grad_();
  Tensor y = tanh(matmul(x, w) + b);                          // (4,2)
  Tensor loss = mean(y * y);

  fmt::print("{}\n", tape());          // one line per recorded op
  BackwardStepper step(loss);          // backward one entry at a time
  while (!step.done()) fmt::print("{}\n", step.step());
  fmt::print("dloss/dw = {}\n", w.grad());

  auto check = gradcheck([](const std::vector<Tensor>& in) { return mean(tanh(in[0])); },
                         {randn({3, 2}, kF64).requires_grad_()});
  fmt::print("{}\n", check.report);
}
