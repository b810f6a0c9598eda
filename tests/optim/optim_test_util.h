#pragma once
// Helpers shared by the optimizer tests.
#include <memory>
#include <string>
#include <vector>

#include "optim/optim.h"
#include "test_util.h"

namespace tg::test {

// A named leaf parameter holding `values` (1-D unless `shape` is given), requiring grad.
inline NamedParameter param(const std::string& name, const std::vector<double>& values, const Shape& shape,
                            DType dtype = kF64) {
  Tensor t = tensor(values, shape, dtype);
  t.requires_grad_();
  return {name, t};
}
inline NamedParameter param(const std::string& name, const std::vector<double>& values) {
  return param(name, values, {static_cast<int64_t>(values.size())});
}

// Replaces p's gradient by `values` (as a backward pass from p itself would leave it), on
// p's device.
inline void set_grad(const NamedParameter& p, const std::vector<double>& values) {
  Tensor t = p.tensor;  // a handle: zero_grad() changes the shared tensor
  t.zero_grad();
  p.tensor.backward(tensor(values, p.tensor.shape(), p.tensor.dtype(), p.tensor.device()));
}

// The tensor stored under `key`; fails the test when there is none.
inline Tensor entry(const StateDict& dict, const std::string& key) {
  for (const auto& [k, t] : dict)
    if (k == key) return t;
  FAIL("no entry ", key);
  return {};
}

inline std::vector<std::string> keys(const StateDict& dict) {
  std::vector<std::string> out;
  for (const auto& [k, t] : dict) out.push_back(k);
  return out;
}

// A copy of p (same name, values and dtype) on `device`, requiring grad.
inline NamedParameter param_on(const NamedParameter& p, Device device) {
  Tensor t = empty(p.tensor.shape(), p.tensor.dtype(), device);
  copy_(t, p.tensor.detach());
  t.requires_grad_();
  return {p.name, t};
}

// Two optimizers that `make` builds, one over a float64 parameter "p" = [1, -2, 0.25] and one
// over a float32 one with the same values, after three steps with the same gradients: the
// float32 tests compare the two parameters and buffers.
struct F64AndF32Runs {
  NamedParameter p64, p32;
  std::unique_ptr<Optimizer> opt64, opt32;
};
template <class Make>
F64AndF32Runs step_f64_and_f32(Make make) {
  F64AndF32Runs run{param("p", {1, -2, 0.25}), param("p", {1, -2, 0.25}, {3}, kF32), nullptr, nullptr};
  run.opt64 = make(std::vector<NamedParameter>{run.p64});
  run.opt32 = make(std::vector<NamedParameter>{run.p32});
  for (const std::vector<double>& g : {std::vector<double>{0.5, 1, -3}, {-1, 2, 0.125}, {0.3, -0.7, 1}}) {
    set_grad(run.p64, g);
    set_grad(run.p32, g);
    run.opt64->step();
    run.opt32->step();
  }
  return run;
}

// Runs `steps` updates of the optimizer that `make` builds, once on CPU parameters and once on
// GPU copies of them, in float64 and float32, with the same random gradients; after every step
// requires the GPU parameters and every state_dict entry (the buffers) to match the CPU's.
template <class Make>
void require_cuda_optimizer_matches_cpu(const std::string& what, Make make, int steps = 3) {
  for (DType dtype : {kF64, kF32}) {
    INFO(what, " in ", dtype_name(dtype));
    const double atol = dtype == kF64 ? 1e-12 : 1e-6, rtol = dtype == kF64 ? 1e-12 : 1e-5;
    Generator gen(5);
    // One GPU launch takes them all: "big" spans two chunks of optim/multi_tensor_cuda.cuh, and
    // "late" has no gradient at step 1, so its step lags the others'.
    std::vector<NamedParameter> cpu = {{"w", to_dtype_copy(rand({3, 4}, kF64, kCPU, gen, -1, 1), dtype)},
                                       {"b", to_dtype_copy(rand({4}, kF64, kCPU, gen, -1, 1), dtype)},
                                       {"big", to_dtype_copy(rand({5000}, kF64, kCPU, gen, -1, 1), dtype)},
                                       {"late", to_dtype_copy(rand({2, 3}, kF64, kCPU, gen, -1, 1), dtype)}};
    std::vector<NamedParameter> gpu;
    for (NamedParameter& p : cpu) {
      p.tensor.requires_grad_();
      gpu.push_back(param_on(p, Device::cuda()));
    }
    auto opt_cpu = make(cpu), opt_gpu = make(gpu);
    for (int step = 1; step <= steps; ++step) {
      INFO("after step ", step);
      for (size_t i = 0; i < cpu.size(); ++i) {
        if (cpu[i].name == "late" && step == 1) continue;
        const std::vector<double> g = rand(cpu[i].tensor.shape(), kF64, kCPU, gen, -1, 1).to_vector<double>();
        set_grad(cpu[i], g);
        set_grad(gpu[i], g);
      }
      opt_cpu->step();
      opt_gpu->step();
      for (size_t i = 0; i < cpu.size(); ++i) {
        INFO("parameter ", cpu[i].name);
        REQUIRE(gpu[i].tensor.is_cuda());
        require_close(to_device_copy(gpu[i].tensor, kCPU), cpu[i].tensor, atol, rtol);
      }
      const StateDict state_cpu = opt_cpu->state_dict(), state_gpu = opt_gpu->state_dict();
      REQUIRE(keys(state_gpu) == keys(state_cpu));
      for (size_t i = 0; i < state_cpu.size(); ++i) {
        INFO("state_dict entry ", state_cpu[i].first);
        require_close(to_device_copy(state_gpu[i].second, kCPU), state_cpu[i].second, atol, rtol);
      }
    }
  }
}

}  // namespace tg::test
