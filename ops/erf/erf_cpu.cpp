#include <cmath>

#include "ops/common/elementwise_cpu.h"
#include "ops/erf/erf.h"

namespace tg {

// inp (...) -> out (...)
void erf_forward_cpu(const Tensor& out, const Tensor& inp) {
  unary_kernel_cpu(out, inp, "erf", [](auto x) { return std::erf(x); });
}

}  // namespace tg
