// A worked example: forward, the tape, backward step by step, and a gradient check.
#include <tapegrad.h>

int main() {
  using namespace tg;
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}).set_name("x").requires_grad_();
  Tensor b = tensor({0.5, -1, 2}).set_name("b").requires_grad_();
  Tensor y = sum(x + b);
  fmt::print("y = {}\n\ntape:\n{}\n", y, tape());
  y.backward();
  fmt::print("dy/dx = {}\ndy/db = {}\n", x.grad(), b.grad());
}
