#pragma once
// Checks shared by the elementwise op tests: float32 against float64, and CUDA against CPU.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace tg::test {

// Runs fn on float64 and on float32 copies of `inputs` (fresh leaves that require grad where
// the inputs do), seeds both backwards with the same random gradient, and requires the f32
// output and gradients to be float32 and close to the f64 ones.
inline void require_f32_close_to_f64(const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                                     double atol = 1e-5, double rtol = 1e-4) {
  std::vector<Tensor> in64, in32;
  for (const Tensor& t : inputs) {
    in64.push_back(to_dtype_copy(t.detach(), kF64));
    in32.push_back(to_dtype_copy(t.detach(), kF32));
    if (t.requires_grad()) in64.back().requires_grad_(), in32.back().requires_grad_();
  }
  Tensor y64 = fn(in64), y32 = fn(in32);
  REQUIRE(y32.dtype() == kF32);
  require_close(y32, y64, atol, rtol);
  Generator gen(99);
  Tensor seed = rand(y64.shape(), kF64, kCPU, gen, -1, 1);
  y64.backward(seed);
  y32.backward(to_dtype_copy(seed, kF32));
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].requires_grad()) continue;
    CAPTURE(i);
    REQUIRE(in32[i].grad().dtype() == kF32);
    require_close(in32[i].grad(), in64[i].grad(), atol, rtol);
  }
}

// Requires every element of t to be at least `margin` away from 0 (inputs of relu's
// gradcheck must not straddle the kink).
inline void require_away_from_zero(const Tensor& t, double margin) {
  for (double v : to_dtype_copy(t, kF64).to_vector<double>()) REQUIRE(std::abs(v) > margin);
}

// The errors every CPU-only unary op gives, each naming the op: an integer input, an
// undefined input, and (where a GPU is present) a CUDA input.
inline void require_unary_errors(const std::function<Tensor(const Tensor&)>& op, const std::string& name) {
  CHECK_THROWS_WITH_AS(op(tensor_i64({1, 2})), doctest::Contains((name + ": argument 'x' must be float").c_str()),
                       tg::Error);
  CHECK_THROWS_WITH_AS(op(Tensor()), doctest::Contains((name + ": argument 'x' is an undefined").c_str()), tg::Error);
  if (gpu_available_or_skip())
    CHECK_THROWS_WITH_AS(op(to_device_copy(ones({2}), Device::cuda())),
                         doctest::Contains((name + ": no CUDA kernel yet; x (2,) float32 is on cuda:0").c_str()),
                         tg::Error);
}

// A CUDA copy of a CPU tensor with the same shape, strides and offset (so non-contiguous
// inputs stay non-contiguous on the GPU).
inline Tensor cuda_copy_keeping_strides(const Tensor& t) {
  int64_t span = t.offset() + 1;
  for (int64_t d = 0; d < t.dim(); ++d) span += (t.shape()[d] - 1) * t.strides()[d];
  Tensor view = make_view(empty({span}, t.dtype(), Device::cuda()), t.shape(), t.strides(), t.offset());
  copy_(view, t);
  return view;
}

// Runs fn on the CPU inputs and on CUDA copies of them; requires the same values.
inline void require_cuda_matches_cpu(const GradcheckFn& fn, const std::vector<Tensor>& inputs) {
  NoGradGuard no_grad;
  std::vector<Tensor> on_gpu;
  for (const Tensor& t : inputs) on_gpu.push_back(cuda_copy_keeping_strides(t));
  Tensor y = fn(on_gpu);
  REQUIRE(y.is_cuda());
  require_close(to_device_copy(y, kCPU), fn(inputs), 1e-12, 1e-12);
}

}  // namespace tg::test
