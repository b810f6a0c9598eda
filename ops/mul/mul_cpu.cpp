#include "ops/common/elementwise_cpu.h"
#include "ops/mul/mul.h"

namespace tg {

void mul_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  binary_kernel_cpu(out, a, b, "mul", [](auto x, auto y) { return x * y; });
}

}  // namespace tg
