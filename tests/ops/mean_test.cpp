#include "ops/mean/mean.h"
#include "higher_order_test_util.h"
#include "test_util.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("mean: hand-worked forward over dims, keepdim and negative dims") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});  // [[1,2,3],[4,5,6]]
  Tensor all = mean(x);                            // 21 / 6
  CHECK(all.shape() == Shape{});
  CHECK(all.item() == doctest::Approx(3.5));
  Tensor cols = mean(x, {0});  // [(1+4)/2, (2+5)/2, (3+6)/2]
  CHECK(cols.shape() == Shape{3});
  require_values(cols, {2.5, 3.5, 4.5});
  Tensor rows = mean(x, {-1}, true);  // [[6/3], [15/3]]
  CHECK(rows.shape() == Shape{2, 1});
  require_values(rows, {2, 5});

  // y = 0..7 as (2,2,2); over dims 0 and 2: j=0: (0+1+4+5)/4 = 2.5, j=1: (2+3+6+7)/4 = 4.5
  Tensor y = reshape(arange(0, 8, 1, kF64), {2, 2, 2});
  require_values(mean(y, {0, 2}), {2.5, 4.5});
  CHECK(mean(y, {2, 0}, true).shape() == Shape{1, 2, 1});

  // A transposed view t = [[1,4],[2,5],[3,6]]: row means [2.5,3.5,4.5]
  require_values(mean(make_view(x, {3, 2}, {1, 3}, 0), {1}), {2.5, 3.5, 4.5});
  CHECK(mean(scalar(4.0)).item() == 4.0);
}

TEST_CASE("mean: hand-worked backward spreads grad / count") {
  Tensor x = rand64({2, 3}, 1);
  mean(x, {1}).backward(tensor({3, -6}, {2}, kF64));  // each row's grad / 3
  CHECK(x.grad().shape() == x.shape());
  require_values(x.grad(), {1, 1, 1, -2, -2, -2});

  Tensor z = rand64({2, 2}, 2);
  mean(z).backward();  // 1/4 each
  require_values(z.grad(), {0.25, 0.25, 0.25, 0.25});
}

TEST_CASE("mean: of zero elements is NaN (as in PyTorch)") {
  Tensor e = zeros({0, 3});
  CHECK(std::isnan(mean(e).item()));
  Tensor cols = mean(e, {0});  // three columns of zero elements each
  CHECK(cols.shape() == Shape{3});
  for (float v : cols.to_vector<float>()) CHECK(std::isnan(v));
  CHECK(mean(e, {1}).shape() == Shape{0});  // zero rows: an empty result, no NaN
}

TEST_CASE("gradcheck mean") {
  require_gradcheck("mean", [](const auto& in) { return mean(in[0], {1}); }, {rand64({2, 3}, 1)});
  require_gradcheck("mean", [](const auto& in) { return mean(in[0], {0, -1}, true); }, {rand64({2, 3, 4}, 2)});
  require_gradcheck("mean", [](const auto& in) { return mean(in[0]); }, {rand64({3, 2}, 3)});
  require_gradcheck("mean", [](const auto& in) { return mean(in[0], {0}); }, {noncontig64({3, 4}, 4)});
  require_gradcheck("mean", [](const auto& in) { return mean(in[0], {1, 2}); }, {noncontig64({2, 3, 2}, 5)});
  // broadcast: mean of a + b with b (3,) broadcast over the rows
  require_gradcheck("mean", [](const auto& in) { return mean(add(in[0], in[1]), {0}); },
                    {rand64({4, 3}, 6), rand64({3}, 7)});
}

TEST_CASE("mean: float32 agrees with float64") {
  Tensor x64 = rand64({3, 5}, 9);
  Tensor x32 = to_dtype_copy(x64, kF32).requires_grad_();
  Generator gen(10);
  Tensor g = rand({3}, kF64, kCPU, gen);
  mean(x64, {1}).backward(g);
  Tensor y32 = mean(x32, {1});
  CHECK(y32.dtype() == kF32);
  y32.backward(to_dtype_copy(g, kF32));
  require_close(y32, mean(x64.detach(), {1}), 1e-6, 1e-5);
  CHECK(x32.grad().dtype() == kF32);
  require_close(x32.grad(), x64.grad(), 1e-6, 1e-6);
  // Large: the mean of 10^6 times 0.1f is 0.1f (accumulated in double).
  CHECK(mean(full({1000, 1000}, 0.1, kF32)).item() == doctest::Approx(0.1).epsilon(1e-6));
}

TEST_CASE("mean: errors name the op and the shape") {
  Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(mean(x, {2}), doctest::Contains("mean: dim 2 is out of range for a tensor of shape (2,3)"),
                       Error);
  CHECK_THROWS_WITH_AS(mean(x, {0, -2}), doctest::Contains("mean: dim -2 appears twice"), Error);
  CHECK_THROWS_WITH_AS(mean(tensor_i64({1, 2})), doctest::Contains("mean"), Error);
}

TEST_CASE("mean: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto mean_over = [](std::vector<int64_t> dims, bool keepdim) -> GradcheckFn {
    return [dims, keepdim](const std::vector<Tensor>& in) { return mean(in[0], dims, keepdim); };
  };
  auto mean_all = [](const std::vector<Tensor>& in) { return mean(in[0]); };
  require_cuda_matches_cpu(mean_over({1}, false), {rand64({2, 3}, 1)});
  require_cuda_matches_cpu(mean_over({0, -1}, true), {rand64({2, 3, 4}, 2)});
  require_cuda_matches_cpu(mean_over({1, 2}, false), {noncontig64({2, 3, 2}, 3)});
  require_cuda_matches_cpu(mean_all, {noncontig64({3, 4}, 4)});
  require_cuda_matches_cpu(mean_all, {rand64({}, 5)});
  require_cuda_matches_cpu(mean_over({0}, false), {rand64({0, 3}, 6)});  // 0/0: NaN on both devices
  require_cuda_matches_cpu(mean_over({1}, false), {rand64({3, 700}, 7)});  // rows longer than a block
  // broadcast: mean of a + b with b (3,) broadcast over the rows
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return mean(add(in[0], in[1]), {0}); },
                           {rand64({4, 3}, 8), rand64({3}, 9)});
  require_gradcheck("mean", mean_over({0, -1}, true), {cuda_copy(rand64({2, 3, 4}, 10))});
  require_gradcheck("mean", mean_all, {cuda_copy(noncontig64({2, 3, 2}, 11))});
}

TEST_CASE("mean: second order, forward mode, and the reference rule against the kernel") {
  for (bool keepdim : {false, true}) {
    CAPTURE(keepdim);
    const GradcheckFn fn = [&](const std::vector<Tensor>& in) { return mean(in[0], {0, -1}, keepdim); };
    require_second_order(fn, {rand64({2, 3, 4}, 1)});
    require_forward_mode(fn, {noncontig64({3, 4}, 2)});
    require_reference_matches_fast(fn, {noncontig64({3, 4}, 2)});
  }
  const GradcheckFn all = [](const std::vector<Tensor>& in) { return mean(in[0]); };
  require_second_order(all, {rand64({2, 3}, 3)});
  require_forward_mode(all, {rand64({2, 3}, 3)});
  require_reference_matches_fast(all, {rand64({2, 3}, 3)});
}
