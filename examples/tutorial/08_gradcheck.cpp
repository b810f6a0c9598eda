// docs/tutorial.md, "Check your own gradient": gradcheck on a function built from ops.
#include <tapegrad.h>

#include <cmath>

int main() {
  using namespace tg;
  manual_seed(0);
  auto attention = [](const std::vector<Tensor>& in) {  // q, k, v: (3, 4) each
    Tensor scores = mul(matmul(in[0], transpose(in[1], 0, 1)), 0.5);  // 1 / sqrt(4)
    return matmul(softmax(masked_fill(scores, causal_mask(3), -INFINITY), -1), in[2]);
  };
  std::vector<Tensor> inputs;
  for (int i = 0; i < 3; ++i) inputs.push_back(randn({3, 4}, kF64).requires_grad_());  // float64
  GradcheckResult r = gradcheck(attention, inputs);
  fmt::print("{} ({} elements checked)\n", r.ok ? "gradcheck passed" : "gradcheck FAILED", r.checked);
}
