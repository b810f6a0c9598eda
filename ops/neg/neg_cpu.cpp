#include "ops/common/elementwise_cpu.h"
#include "ops/neg/neg.h"

namespace tg {

void neg_forward_cpu(const Tensor& out, const Tensor& x) {
  unary_kernel_cpu(out, x, "neg", [](auto v) { return -v; });
}

}  // namespace tg
