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

// The errors every unary op gives, each naming the op: an integer input and an undefined one.
inline void require_unary_errors(const std::function<Tensor(const Tensor&)>& op, const std::string& name) {
  CHECK_THROWS_WITH_AS(op(tensor_i64({1, 2})), doctest::Contains((name + ": argument 'x' must be float").c_str()),
                       tg::Error);
  CHECK_THROWS_WITH_AS(op(Tensor()), doctest::Contains((name + ": argument 'x' is an undefined").c_str()), tg::Error);
}

// A unary op on the GPU (call after gpu_available_or_skip()): parity with the CPU, forward and
// backward (require_cuda_matches_cpu), on a contiguous, a 0-d, a non-contiguous, a larger
// (several blocks) and an expanded (broadcast view) input, then gradcheck in float64 on the GPU.
// Input values are uniform in [low, high).
inline void require_unary_cuda_matches_cpu(const std::string& name, const std::function<Tensor(const Tensor&)>& op,
                                           double low = -1, double high = 1) {
  auto fn = [op](const std::vector<Tensor>& in) { return op(in[0]); };
  auto broadcast = [op](const std::vector<Tensor>& in) { return op(expand(in[0], {3, 4})); };
  require_cuda_matches_cpu(fn, {rand64({2, 3}, 1, low, high)});
  require_cuda_matches_cpu(fn, {rand64({}, 2, low, high)});
  require_cuda_matches_cpu(fn, {noncontig64({3, 4}, 3, low, high)});
  require_cuda_matches_cpu(fn, {rand64({40, 50}, 4, low, high)});
  require_cuda_matches_cpu(broadcast, {rand64({3, 1}, 5, low, high)});
  require_gradcheck(name, fn, {cuda_copy(noncontig64({2, 3}, 6, low, high))});
  require_gradcheck(name, broadcast, {cuda_copy(rand64({3, 1}, 7, low, high))});
}

}  // namespace tg::test
