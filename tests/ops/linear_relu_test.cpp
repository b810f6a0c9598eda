#include <cmath>
#include <limits>
#include <vector>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "elementwise_test_util.h"
#include "fused_pair_test_util.h"
#include "gemm_test_util.h"
#include "ops/fused/linear/linear.h"
#include "ops/fused/linear_relu/linear_relu.h"
#include "ops/relu/relu.h"
#include "ops/slice/slice.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("linear_relu: hand-worked forward and backward") {
  // x (2,3), weight (2,3), bias (2): y = x W^T + b = (-1.9, 5, 3.6, 0.25), out = relu(y). Backward
  // from g = 1: gy = 1 where y > 0, else 0; dx = gy W, dW = gy^T x, db = the column sums of gy.
  const std::vector<double> xv{1, -2, 0.5, 3, 1, -1}, wv{0.5, 1, -1, -2, 0.25, 1}, bv{0.1, 7};
  Tensor x = tensor(xv, {2, 3}, kF64).requires_grad_(), w = tensor(wv, {2, 3}, kF64).requires_grad_();
  Tensor b = tensor(bv, {2}, kF64).requires_grad_();
  Tensor out = linear_relu(x, w, b);
  CHECK(out.producer()->op == "linear_relu");
  require_values(out, {0, 5, 3.6, 0.25}, 1e-12);
  out.backward(full({2, 2}, 1.0, kF64));
  // gy = (0, 1, 1, 1): dx row 0 = W[1], row 1 = W[0] + W[1]; dW[0] = x[1], dW[1] = x[0] + x[1]
  require_values(x.grad(), {-2, 0.25, 1, -1.5, 1.25, 0}, 1e-12);
  require_values(w.grad(), {3, 1, -1, 4, -1, -0.5}, 1e-12);
  require_values(b.grad(), {1, 2}, 0);
}

TEST_CASE("linear_relu: the values and gradients of linear then relu, exactly, on every kernel and thread count") {
  // The relu in the micro-kernel's registers (whole tiles), in the copy of an edge tile, in the sum
  // of a depth split's parts, and where K = 0.
  std::vector<LinearCase> cases = linear_cases();
  cases.push_back(
      {"(300,0) -> 200: K = 0, the bias alone", {rand64({300, 0}, 15), rand64({200, 0}, 16), rand64({200}, 17)}});
  for_kernels_and_threads({1, 2, 3}, [&] {
    for_linear_cases(cases, {0}, [](const LinearCase& c, DType dtype, const std::vector<int>& reread) {
      const FusedAndUnfused r = run_fused_and_unfused(
          c.inputs, dtype, [](const TensorList& in, Generator&) { return linear_relu(in[0], in[1], in[2]); },
          [](const TensorList& in, Generator&) { return relu(linear(in[0], in[1], in[2])); }, reread);
      CHECK(r.fused.producer()->op == "linear_relu");
      require_same_as_unfused(r);
    });
  });
}

TEST_CASE("linear_relu: NaN stays NaN, and -0 becomes 0, as relu has them") {
  // y = x W^T: row 0 is NaN (x holds one), row 1 is -0 (0 * -1 summed with a bias of -0).
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor x = tensor({nan, 0}, {2, 1}, dtype), w = tensor({-1}, {1, 1}, dtype), b = tensor({-0.0}, {1}, dtype);
    const Tensor out = linear_relu(x, w, b), expected = relu(linear(x, w, b));
    CHECK(std::isnan(slice(out, 0, 0, 1).item()));
    CHECK(slice(out, 0, 1, 2).item() == 0);
    CHECK_FALSE(std::signbit(slice(out, 0, 1, 2).item()));
    require_close(out, expected, 0, 0);
  }
}

TEST_CASE("gradcheck linear_relu") {
  auto fn = [](const std::vector<Tensor>& in) { return linear_relu(in[0], in[1], in[2]); };
  require_gradcheck("linear_relu", fn, {rand64({2, 3}, 1), rand64({4, 3}, 2), rand64({4}, 3)});
  require_gradcheck("linear_relu", fn, {noncontig64({4, 5, 3}, 4), rand64({6, 3}, 5), rand64({6}, 6)});
}

TEST_CASE("linear_relu: errors name the op, the argument and the limit") {
  CHECK_THROWS_WITH_AS(linear_relu(ones({2, 3}), ones({4, 2}), ones({4})),
                       "linear_relu: expected x (..., in), weight (out, in), bias (out), got x (2,3) weight (4,2) bias "
                       "(4,)",
                       Error);
  CHECK_THROWS_WITH_AS(linear_relu(ones({2, 3}), ones({4, 3}), ones({3})),
                       doctest::Contains("linear_relu: expected x (..., in)"), Error);
  CHECK_THROWS_WITH_AS(linear_relu(ones({2, 3}), ones({4, 3}, kF64), {}), doctest::Contains("linear_relu"), Error);
}

TEST_CASE("linear_relu: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{noncontig64({4, 5, 3}, 2), rand64({6, 3}, 3), rand64({6}, 4)};
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return linear_relu(in[0], in[1], in[2]); };
  require_cuda_matches_cpu_with_grads("linear_relu (4,5,3), x non-contiguous", fn, inputs);
}
