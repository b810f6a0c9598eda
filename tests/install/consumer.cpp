#include <tapegrad.h>

int main() {
  tg::Tensor x = tg::tensor({1, 2, 3}).requires_grad_();
  tg::Tensor y = tg::sum(x + x);
  y.backward();
  fmt::print("{}\n", x.grad());
  return x.grad().to_vector<float>() == std::vector<float>{2, 2, 2} ? 0 : 1;
}
