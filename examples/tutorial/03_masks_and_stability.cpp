// docs/tutorial.md, "Masks and a stable softmax": -inf versus 0, and the max subtraction.
#include <tapegrad.h>

int main() {
  using namespace tg;
  Tensor scores = tensor({2.0, 1.0, 3.0});
  Tensor hide_last = tensor_bool({false, false, true});  // true = masked out

  fmt::print("fill -inf: {}\n", softmax(masked_fill(scores, hide_last, -INFINITY), -1));
  fmt::print("fill 0:    {}\n", softmax(masked_fill(scores, hide_last, 0), -1));

  Tensor big = tensor({1000.0, 1001.0, 1002.0});
  fmt::print("exp(big):          {}\n", exp(big));  // overflows float32
  fmt::print("softmax(big):      {}\n", softmax(big, -1));
  fmt::print("softmax(big-1000): {}\n", softmax(sub(big, 1000.0), -1));
}
