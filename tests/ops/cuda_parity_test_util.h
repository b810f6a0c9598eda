#pragma once
// CUDA-versus-CPU checks for the ops with GPU kernels. The CPU kernel is the reference; a
// failure names the case, the dtype, which tensor (output or the gradient of input i), its
// shape and its worst element (require_close).
#include <string>
#include <vector>

#include "test_util.h"

namespace tg::test {

// A copy of t in `dtype` on `device` with t's shape, strides and offset (a non-contiguous
// input stays non-contiguous), requiring grad when t does. t must have elements.
inline Tensor copy_keeping_layout(const Tensor& t, DType dtype, Device device) {
  int64_t span = t.offset() + 1;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.shape()[d] - 1) * t.strides()[d];
  Tensor view = make_view(empty({span}, dtype, device), t.shape(), t.strides(), t.offset());
  copy_(view, t.detach());
  if (t.requires_grad()) view.requires_grad_();
  return view;
}

// The inputs on the GPU (floating ones in float64), layouts and requires_grad kept: for
// require_gradcheck on the GPU. Undefined inputs stay undefined.
inline std::vector<Tensor> on_gpu(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs)
    out.push_back(t.defined() ? copy_keeping_layout(t, is_floating(t.dtype()) ? kF64 : t.dtype(), Device::cuda())
                              : t);
  return out;
}

// Runs fn on the CPU and on the GPU, in float64 and then float32 (floating inputs converted,
// others such as bool masks and int64 indices copied as they are; layouts kept), seeds both
// backwards with the same random gradient, and requires the GPU output and the gradient of
// every input that requires grad to match the CPU's: within 1e-10 in float64, and within
// atol32 + rtol32 * |cpu| in float32.
inline void require_cuda_matches_cpu_with_grads(const std::string& what, const GradcheckFn& fn,
                                                const std::vector<Tensor>& inputs, double atol32 = 1e-5,
                                                double rtol32 = 1e-5) {
  for (DType dtype : {kF64, kF32}) {
    INFO(what, " in ", dtype_name(dtype));
    const double atol = dtype == kF64 ? 1e-10 : atol32, rtol = dtype == kF64 ? 1e-10 : rtol32;
    std::vector<Tensor> cpu, gpu;
    for (const Tensor& t : inputs) {
      const DType d = t.defined() && !is_floating(t.dtype()) ? t.dtype() : dtype;
      cpu.push_back(t.defined() ? copy_keeping_layout(t, d, kCPU) : t);
      gpu.push_back(t.defined() ? copy_keeping_layout(t, d, Device::cuda()) : t);
    }
    const Tensor y_cpu = fn(cpu), y_gpu = fn(gpu);
    REQUIRE(y_gpu.is_cuda());
    REQUIRE(y_gpu.dtype() == y_cpu.dtype());
    {
      INFO("output");
      require_close(to_device_copy(y_gpu, kCPU), y_cpu, atol, rtol);
    }
    if (!y_cpu.requires_grad()) continue;
    Generator gen(2024);
    const Tensor seed = to_dtype_copy(rand(y_cpu.shape(), kF64, kCPU, gen, -1, 1), dtype);
    y_cpu.backward(seed);
    y_gpu.backward(to_device_copy(seed, Device::cuda()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!cpu[i].defined() || !cpu[i].requires_grad()) continue;
      INFO("gradient of input ", i, " ", inputs[i].describe());
      REQUIRE(gpu[i].grad().defined() == cpu[i].grad().defined());
      if (!cpu[i].grad().defined()) continue;
      REQUIRE(gpu[i].grad().is_cuda());
      require_close(to_device_copy(gpu[i].grad(), kCPU), cpu[i].grad(), atol, rtol);
    }
  }
}

}  // namespace tg::test
