#include "ops/fused/relu_dropout/relu_dropout.h"

#include "ops/dropout/dropout.h"
#include "ops/relu/relu.h"

namespace tg {

Tensor relu_dropout(const Tensor& x, double p, bool training, Generator& gen) {
  check_dropout_args(x, p, "relu_dropout");
  if (!training || p == 0) return relu(x);
  return dropout_drawn(x, p, gen, true);
}

}  // namespace tg
