#include "core/dispatch.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {
// x = [[1,2,3],[4,5,6]]
Tensor x23() { return tensor({1, 2, 3, 4, 5, 6}, {2, 3}); }
}  // namespace

TEST_CASE("sum: hand-worked forward over dims, keepdim and negative dims") {
  Tensor x = x23();
  Tensor cols = sum(x, {0});  // [1+4, 2+5, 3+6]
  CHECK(cols.shape() == Shape{3});
  require_values(cols, {5, 7, 9});
  Tensor rows = sum(x, {1}, true);  // [[1+2+3], [4+5+6]]
  CHECK(rows.shape() == Shape{2, 1});
  require_values(rows, {6, 15});
  require_values(sum(x, {-1}), {6, 15});
  Tensor all = sum(x);
  CHECK(all.shape() == Shape{});
  CHECK(all.item() == 21);
  CHECK(sum(x, {1, 0}, true).shape() == Shape{1, 1});
  require_values(sum(x, {1, 0}, true), {21});

  // y = 0..7 as (2,2,2); over dims 0 and 2: j=0: 0+1+4+5 = 10, j=1: 2+3+6+7 = 18
  Tensor y = reshape(arange(0, 8, 1, kF32), {2, 2, 2});
  require_values(sum(y, {0, -1}), {10, 18});
  CHECK(sum(y, {0, 2}, true).shape() == Shape{1, 2, 1});

  // A transposed view t = [[1,4],[2,5],[3,6]]: rows [5,7,9], columns [6,15]
  Tensor t = make_view(x, {3, 2}, {1, 3}, 0);
  require_values(sum(t, {1}), {5, 7, 9});
  require_values(sum(t, {0}), {6, 15});

  // Empty dims reduce nothing; a 0-d tensor sums to itself.
  require_values(sum(x, {}), {1, 2, 3, 4, 5, 6});
  CHECK(sum(scalar(2.5)).item() == 2.5);
  CHECK(sum(zeros({0, 3})).item() == 0);
}

TEST_CASE("sum: backward of keepdim and negative dims has x's shape") {
  Tensor x = rand64({2, 3}, 7);
  Tensor y = sum(x, {-1}, true);  // (2,1)
  y.backward(tensor({2, -1}, {2, 1}, kF64));
  CHECK(x.grad().shape() == x.shape());
  CHECK(x.grad().dtype() == kF64);
  require_values(x.grad(), {2, 2, 2, -1, -1, -1});
}

TEST_CASE("sum_to: reduces broadcast gradients") {
  Tensor g = x23();
  require_values(sum_to(g, {3}), {5, 7, 9});
  CHECK(sum_to(g, {2, 1}).shape() == Shape{2, 1});
  require_values(sum_to(g, {2, 1}), {6, 15});
  CHECK(sum_to(g, {1, 3}).shape() == Shape{1, 3});
  require_values(sum_to(g, {1, 3}), {5, 7, 9});
  CHECK(sum_to(g, {}).item() == 21);

  // Through add: a (2,3) + b (3,) + c (2,1), backward of a weighted sum
  Tensor a = rand64({2, 3}, 1), b = rand64({3}, 2), c = rand64({2, 1}, 3);
  add(add(a, b), c).backward(tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64));
  require_values(a.grad(), {1, 2, 3, 4, 5, 6});
  require_values(b.grad(), {5, 7, 9});
  require_values(c.grad(), {6, 15});

  CHECK_THROWS_WITH_AS(sum_to(g, {2, 4}), doctest::Contains("sum_to: cannot reduce (2,3) to (2,4)"), Error);
  CHECK_THROWS_WITH_AS(sum_to(g, {1, 2, 3}), doctest::Contains("sum_to: cannot reduce (2,3)"), Error);
}

TEST_CASE("gradcheck sum") {
  require_gradcheck("sum", [](const auto& in) { return sum(in[0], {1}); }, {rand64({2, 3}, 1)});
  require_gradcheck("sum", [](const auto& in) { return sum(in[0], {0, -1}, true); }, {rand64({2, 3, 4}, 2)});
  require_gradcheck("sum", [](const auto& in) { return sum(in[0]); }, {rand64({3, 2}, 3)});
  require_gradcheck("sum", [](const auto& in) { return sum(in[0], {0}); }, {noncontig64({3, 4}, 4)});
  require_gradcheck("sum", [](const auto& in) { return sum(in[0]); }, {noncontig64({2, 3, 2}, 5)});
  require_gradcheck("sum", [](const auto& in) { return sum_to(in[0], {3, 1}); }, {rand64({2, 3, 4}, 6)});
}

TEST_CASE("sum: float32 agrees with float64, and large float32 sums stay accurate") {
  Tensor x64 = rand64({3, 5}, 9);
  Tensor x32 = to_dtype_copy(x64, kF32).requires_grad_();
  Generator gen(10);
  Tensor g = rand({5}, kF64, kCPU, gen);
  sum(x64, {0}).backward(g);
  Tensor y32 = sum(x32, {0});
  CHECK(y32.dtype() == kF32);
  y32.backward(to_dtype_copy(g, kF32));
  require_close(y32, sum(x64.detach(), {0}), 1e-6, 1e-5);
  require_close(x32.grad(), x64.grad(), 1e-6, 1e-6);

  // 10^6 times 0.1f: float accumulation would drift by ~1% (to ~100958); the kernel
  // accumulates in double, so the result rounds to 100000.
  Tensor big = full({1000000}, 0.1, kF32);
  CHECK(std::abs(sum(big).item() - 100000) < 0.01);
  // Per output element too, with a strided (dim 0) reduction: 4 columns of 300000 x 0.1f.
  Tensor rows = sum(full({300000, 4}, 0.1, kF32), {0});
  require_values(rows, {30000, 30000, 30000, 30000}, 0.01);
}

TEST_CASE("sum: over leading dims each column adds its rows in order in double, bit for bit") {
  // width 300: blocks of columns summed in registers, and a remainder
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype);
    Generator gen(5);
    const Tensor x = randn({37, 3, 100}, dtype, kCPU, gen);
    Tensor expected = empty({3, 100}, dtype);
    dispatch_floating(dtype, "test", [&](auto zero) {
      using T = decltype(zero);
      for (int64_t c = 0; c < 300; ++c) {
        double s = 0;
        for (int64_t r = 0; r < 37; ++r) s += x.data<T>()[r * 300 + c];
        expected.data<T>()[c] = static_cast<T>(s);
      }
    });
    require_close(sum(x, {0}), expected, 0, 0);
  }
}

TEST_CASE("sum: errors name the op and the shape") {
  Tensor x = x23();
  CHECK_THROWS_WITH_AS(sum(x, {2}), doctest::Contains("sum: dim 2 is out of range for a tensor of shape (2,3)"),
                       Error);
  CHECK_THROWS_WITH_AS(sum(x, {-3}), doctest::Contains("sum: dim -3 is out of range"), Error);
  CHECK_THROWS_WITH_AS(sum(x, {1, -1}),
                       doctest::Contains("sum: dim -1 appears twice in dims [1,-1] for x of shape (2,3)"), Error);
  CHECK_THROWS_WITH_AS(sum(tensor_i64({1, 2})), doctest::Contains("sum"), Error);
}

TEST_CASE("sum: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto sum_over = [](std::vector<int64_t> dims, bool keepdim) -> GradcheckFn {
    return [dims, keepdim](const std::vector<Tensor>& in) { return sum(in[0], dims, keepdim); };
  };
  auto sum_all = [](const std::vector<Tensor>& in) { return sum(in[0]); };
  require_cuda_matches_cpu(sum_over({1}, false), {rand64({2, 3}, 1)});
  require_cuda_matches_cpu(sum_over({0, -1}, true), {rand64({2, 3, 4}, 2)});
  require_cuda_matches_cpu(sum_over({0}, false), {noncontig64({3, 4}, 3)});
  require_cuda_matches_cpu(sum_all, {noncontig64({2, 3, 2}, 4)});
  require_cuda_matches_cpu(sum_all, {rand64({}, 5)});
  require_cuda_matches_cpu(sum_over({0}, false), {rand64({0, 3}, 6)});  // zero elements per output: 0
  // Rows longer than a block (256 threads), along the last dim and along a strided dim.
  require_cuda_matches_cpu(sum_over({1}, false), {rand64({3, 700}, 7)});
  require_cuda_matches_cpu(sum_over({0}, false), {rand64({700, 3}, 8)});
  require_cuda_matches_cpu(sum_all, {rand64({50, 40}, 9)});
  // Broadcasting backward: sum_to reduces the gradients of b (3,) and c (2,1) on the GPU.
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return add(add(in[0], in[1]), in[2]); },
                           {rand64({2, 3}, 10), rand64({3}, 11), rand64({2, 1}, 12)});
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return sum_to(in[0], {3, 1}); },
                           {rand64({2, 3, 4}, 13)});
  require_gradcheck("sum", sum_over({0, -1}, true), {cuda_copy(rand64({2, 3, 4}, 14))});
  require_gradcheck("sum", sum_all, {cuda_copy(noncontig64({2, 3, 2}, 15))});
  // Float32 sums of many terms accumulate in double on the GPU too (10^6 x 0.1f).
  CHECK(std::abs(sum(full({1000000}, 0.1, kF32, Device::cuda())).item() - 100000) < 0.01);
}

TEST_CASE("sum: second order and forward mode, over dims and over all") {
  for (bool keepdim : {false, true}) {
    CAPTURE(keepdim);
    const GradcheckFn fn = [&](const std::vector<Tensor>& in) { return sum(in[0], {0, -1}, keepdim); };
    require_second_order(fn, {rand64({2, 3, 4}, 1)});
    require_forward_mode(fn, {noncontig64({3, 4}, 2)});
  }
  const GradcheckFn all = [](const std::vector<Tensor>& in) { return sum(in[0]); };
  require_second_order(all, {rand64({2, 3}, 3)});
  require_forward_mode(all, {rand64({2, 3}, 3)});
}
