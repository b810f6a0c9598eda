#include "ops/common/elementwise_cpu.h"
#include "ops/sub/sub.h"

namespace tg {

void sub_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  binary_kernel_cpu(out, a, b, "sub", [](auto x, auto y) { return x - y; });
}

}  // namespace tg
