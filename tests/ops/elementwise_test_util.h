#pragma once
// Checks shared by the elementwise op tests: inputs away from kinks, errors, CUDA against CPU.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "test_util.h"

namespace tg::test {

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
