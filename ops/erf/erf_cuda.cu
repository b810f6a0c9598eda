#include <cmath>

#include "ops/common/elementwise_cuda.cuh"
#include "ops/erf/erf.h"

namespace tg {

// inp (...) -> out (...)
void erf_forward_cuda(const Tensor& out, const Tensor& inp) {
  unary_kernel_cuda(out, inp, "erf", [] __device__(auto x) { return std::erf(x); });
}

}  // namespace tg
