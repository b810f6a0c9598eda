#include "ops/common/elementwise_cpu.h"
#include "ops/div/div.h"

namespace tg {

void div_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  binary_kernel_cpu(out, a, b, "div", [](auto x, auto y) { return x / y; });
}

}  // namespace tg
