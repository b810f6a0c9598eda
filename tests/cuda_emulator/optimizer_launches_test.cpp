// The optimizers' GPU update is one launch per parameter group (and dtype), whatever the number
// of parameters: counted with the CUDA emulator's launch counter.
#include <cuda_runtime.h>

#include "optim/optim_test_util.h"

using namespace tg;
using tg::test::set_grad;

namespace {

// Parameters on the GPU with a gradient of ones, one per dtype given, shapes growing.
std::vector<NamedParameter> gpu_params(const std::vector<DType>& dtypes) {
  std::vector<NamedParameter> params;
  for (size_t i = 0; i < dtypes.size(); ++i) {
    const Shape shape = i % 2 ? Shape{static_cast<int64_t>(i + 2)} : Shape{static_cast<int64_t>(i + 2), 3};
    Tensor t = zeros(shape, dtypes[i], Device::cuda());
    t.requires_grad_();
    params.push_back({"p" + std::to_string(i), t});
  }
  for (const NamedParameter& p : params) set_grad(p, std::vector<double>(static_cast<size_t>(p.tensor.numel()), 1.0));
  return params;
}

// Kernel launches made by one optimizer step after the first (which also fills the state
// buffers with zeros, a launch each).
uint64_t launches_of_step(Optimizer& optimizer) {
  optimizer.step();
  const uint64_t before = tg::emu::launch_count();
  optimizer.step();
  return tg::emu::launch_count() - before;
}

}  // namespace

TEST_CASE("cuda emulator: an optimizer step on the GPU is one launch per parameter group and dtype") {
  Adam adam(gpu_params({kF32, kF32, kF32, kF32, kF32}), {.lr = 0.1});
  CHECK(launches_of_step(adam) == 1);
  AdamW adamw(weight_decay_groups(gpu_params({kF32, kF32, kF32, kF32})), {.lr = 0.1});  // 2 groups: matrices, vectors
  CHECK(launches_of_step(adamw) == 2);
  SGD sgd(gpu_params({kF32, kF64, kF32, kF64}), {.lr = 0.1, .momentum = 0.9});
  CHECK(launches_of_step(sgd) == 2);
  SGD plain(gpu_params({kF64, kF64, kF64}), {.lr = 0.1});
  CHECK(launches_of_step(plain) == 1);
}
