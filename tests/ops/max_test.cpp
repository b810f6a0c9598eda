#include "ops/max/max.h"
#include "higher_order_test_util.h"
#include "test_util.h"

#include <algorithm>
#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("max: hand-worked forward with indices") {
  Tensor x = tensor({1, 5, 3, 4, 2, 6}, {2, 3});  // [[1,5,3],[4,2,6]]
  Tensor all = max(x);
  CHECK(all.shape() == Shape{});
  CHECK(all.item() == 6);

  MaxResult rows = max_with_indices(x, 1);  // row maxima 5 (at 1), 6 (at 2)
  CHECK(rows.values.shape() == Shape{2});
  require_values(rows.values, {5, 6});
  CHECK(rows.indices.dtype() == kI64);
  CHECK(rows.indices.to_vector<int64_t>() == std::vector<int64_t>{1, 2});
  CHECK_FALSE(rows.indices.requires_grad());

  MaxResult cols = max_with_indices(x, -2, true);  // column maxima 4 (row 1), 5 (row 0), 6 (row 1)
  CHECK(cols.values.shape() == Shape{1, 3});
  CHECK(cols.indices.shape() == Shape{1, 3});
  require_values(cols.values, {4, 5, 6});
  CHECK(cols.indices.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 1});
  require_values(max(x, 0), {4, 5, 6});

  // A transposed view t = [[1,4],[5,2],[3,6]]: row maxima 4, 5, 6 at 1, 0, 1
  MaxResult t = max_with_indices(make_view(x, {3, 2}, {1, 3}, 0), 1);
  require_values(t.values, {4, 5, 6});
  CHECK(t.indices.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 1});
  CHECK(max(make_view(x, {3, 2}, {1, 3}, 0)).item() == 6);

  // A 0-d tensor is its own max, at index 0.
  CHECK(max(scalar(-2.0)).item() == -2);
  CHECK(max_with_indices(scalar(-2.0), 0).indices.item() == 0);
  // Zero rows reduce to an empty result (it is the reduced dim that must not be empty).
  CHECK(max(zeros({0, 3}), 1).shape() == Shape{0});
}

TEST_CASE("max: ties give the first maximum its index and the whole gradient") {
  Tensor x = tensor({2, 7, 7, 3, 3, 1}, {2, 3}, kF64).requires_grad_();  // [[2,7,7],[3,3,1]]
  MaxResult r = max_with_indices(x, 1);
  CHECK(r.indices.to_vector<int64_t>() == std::vector<int64_t>{1, 0});
  r.values.backward(tensor({10, 20}, {2}, kF64));
  require_values(x.grad(), {0, 10, 0, 20, 0, 0});

  Tensor y = tensor({1, 9, 9, 0}, {2, 2}, kF64).requires_grad_();
  max(y).backward();
  require_values(y.grad(), {0, 1, 0, 0});

  // Large enough (> kParallelGrain) for max(x) to split over threads: equal maxima in
  // different chunks, the later chunks must not win.
  const int64_t n = 200000;
  std::vector<double> v(n, 0.0);
  v[150000] = v[190000] = v[70000] = 5;
  Tensor big = tensor(v, {n}, kF64).requires_grad_();
  Tensor m = max(big);
  CHECK(m.item() == 5);
  m.backward();
  std::vector<double> g = big.grad().to_vector<double>();
  CHECK(g[70000] == 1);
  CHECK(std::count(g.begin(), g.end(), 0.0) == n - 1);
}

TEST_CASE("max: NaN propagates and takes the index") {
  Tensor x = tensor({1, NAN, 2, 3}, {2, 2});  // [[1,nan],[2,3]]
  CHECK(std::isnan(max(x).item()));
  MaxResult r = max_with_indices(x, 1);
  std::vector<float> v = r.values.to_vector<float>();
  CHECK(std::isnan(v[0]));
  CHECK(v[1] == 3);
  CHECK(r.indices.to_vector<int64_t>() == std::vector<int64_t>{1, 1});
  MaxResult c = max_with_indices(tensor({NAN, 9, NAN}, {3}), 0);  // the first NaN
  CHECK(std::isnan(c.values.item()));
  CHECK(c.indices.item() == 0);

  // Over all elements, in parallel: the first NaN wins even when a later chunk holds one too.
  std::vector<double> big(100000, 1.0);
  big[90000] = big[40000] = NAN;  // one in each half
  big[99] = 7;
  Tensor b = tensor(big, {100000}, kF64).requires_grad_();
  Tensor m = max(b);
  CHECK(std::isnan(m.item()));
  m.backward();
  CHECK(b.grad().to_vector<double>()[40000] == 1);
}

TEST_CASE("gradcheck max") {
  // rand64 values are distinct, so each maximum is unique and the finite differences see it.
  auto dim1 = [](const auto& in) { return max(in[0], 1); };
  require_gradcheck("max", dim1, {rand64({3, 4}, 1)});
  require_gradcheck("max", dim1, {noncontig64({3, 4}, 2)});
  require_gradcheck("max", [](const auto& in) { return max(in[0], -3, true); }, {rand64({3, 2, 4}, 3)});
  require_gradcheck("max", [](const auto& in) { return max(in[0], 1); }, {noncontig64({2, 3, 4}, 4)});
  require_gradcheck("max", [](const auto& in) { return max(in[0]); }, {rand64({3, 4}, 5)});
  require_gradcheck("max", [](const auto& in) { return max(in[0]); }, {noncontig64({2, 3, 2}, 6)});
  // broadcast: max over the rows of a + b with b (3,) broadcast
  require_gradcheck("max", [](const auto& in) { return max(add(in[0], in[1]), 0); },
                    {rand64({4, 3}, 7), rand64({3}, 8)});
}

TEST_CASE("max: float32 agrees with float64") {
  Tensor x64 = rand64({4, 5}, 9);
  Tensor x32 = to_dtype_copy(x64, kF32).requires_grad_();
  Generator gen(10);
  Tensor g = rand({5}, kF64, kCPU, gen);
  max(x64, 0).backward(g);
  MaxResult r32 = max_with_indices(x32, 0);
  CHECK(r32.values.dtype() == kF32);
  r32.values.backward(to_dtype_copy(g, kF32));
  require_close(r32.values, max(x64.detach(), 0), 1e-6, 1e-6);
  CHECK(r32.indices.to_vector<int64_t>() == max_with_indices(x64.detach(), 0).indices.to_vector<int64_t>());
  CHECK(x32.grad().dtype() == kF32);
  require_close(x32.grad(), x64.grad(), 1e-6, 1e-6);
  CHECK(max(x32).item() == doctest::Approx(max(x64.detach()).item()).epsilon(1e-6));
}

TEST_CASE("max: errors name the op and the shape") {
  Tensor e = zeros({0, 3});
  CHECK_THROWS_WITH_AS(max(e), "max: cannot reduce over zero elements: x (0,3) is empty", Error);
  CHECK_THROWS_WITH_AS(max(e, 0), "max: cannot reduce over zero elements: dim 0 of x (0,3) has size 0", Error);
  CHECK_THROWS_WITH_AS(max_with_indices(e, -2, true), doctest::Contains("max: cannot reduce over zero elements"),
                       Error);
  Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(max(x, 2), doctest::Contains("max: dim 2 is out of range for a tensor of shape (2,3)"), Error);
  CHECK_THROWS_WITH_AS(max(tensor_i64({1, 2})), doctest::Contains("max"), Error);
}

TEST_CASE("max: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto max_along = [](int64_t dim, bool keepdim) -> GradcheckFn {
    return [dim, keepdim](const std::vector<Tensor>& in) { return max(in[0], dim, keepdim); };
  };
  auto max_all = [](const std::vector<Tensor>& in) { return max(in[0]); };
  require_cuda_matches_cpu(max_along(1, false), {rand64({3, 4}, 1)});
  require_cuda_matches_cpu(max_along(-3, true), {rand64({3, 2, 4}, 2)});
  require_cuda_matches_cpu(max_along(1, false), {noncontig64({2, 3, 4}, 3)});
  require_cuda_matches_cpu(max_along(0, false), {rand64({}, 4)});
  require_cuda_matches_cpu(max_along(1, false), {rand64({3, 700}, 5)});  // rows longer than a block
  require_cuda_matches_cpu(max_all, {noncontig64({2, 3, 2}, 6)});
  require_cuda_matches_cpu(max_all, {rand64({50, 40}, 7)});
  // broadcast: max over the rows of a + b with b (3,) broadcast
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return max(add(in[0], in[1]), 0); },
                           {rand64({4, 3}, 8), rand64({3}, 9)});
  require_gradcheck("max", max_along(1, false), {cuda_copy(noncontig64({3, 4}, 10))});
  require_gradcheck("max", max_all, {cuda_copy(rand64({3, 4}, 11))});

  // Ties (the first maximum) and NaN (the first NaN), in rows shorter and longer than a block:
  // the same indices, and the gradient at the same positions, on both devices.
  std::vector<double> cycle(1000), nans(1000, 1.0);
  for (size_t i = 0; i < cycle.size(); ++i) cycle[i] = static_cast<double>(i % 7);  // max 6, first at 6
  nans[900] = nans[300] = NAN;                                                      // first NaN at 300
  const std::vector<Tensor> cases = {tensor({2, 7, 7, 3, 3, 1}, {2, 3}, kF64),
                                     tensor({1, NAN, 2, 3}, {2, 2}, kF64),
                                     tensor(cycle, {2, 500}, kF64),
                                     tensor(nans, {1000}, kF64),
                                     zeros({3, 300}, kF64)};
  for (const Tensor& x : cases) {
    CAPTURE(x.describe());
    for (int64_t dim : {int64_t{0}, int64_t{-1}}) {
      CAPTURE(dim);
      MaxResult on_cpu = max_with_indices(x, dim), on_gpu = max_with_indices(cuda_copy(x), dim);
      CHECK(on_gpu.indices.to_vector<int64_t>() == on_cpu.indices.to_vector<int64_t>());
      require_close(to_device_copy(on_gpu.values, kCPU), on_cpu.values, 0, 0);
      require_cuda_matches_cpu(max_along(dim, false), {x.detach().requires_grad_()});
    }
    require_cuda_matches_cpu(max_all, {x.detach().requires_grad_()});
  }
}

// Random inputs have no ties: the derivative is that of the first maximum, constant nearby.
TEST_CASE("max: second order, forward mode, and the reference rule against the kernel (away from ties)") {
  for (bool keepdim : {false, true}) {
    CAPTURE(keepdim);
    const GradcheckFn fn = [&](const std::vector<Tensor>& in) { return max(in[0], 0, keepdim); };
    require_second_order(fn, {rand64({3, 4}, 1)});
    require_forward_mode(fn, {noncontig64({3, 4}, 2)});
    require_reference_matches_fast(fn, {noncontig64({3, 4}, 2)});
  }
  const GradcheckFn all = [](const std::vector<Tensor>& in) { return max(in[0]); };
  require_second_order(all, {rand64({2, 3}, 3)});
  require_forward_mode(all, {noncontig64({3, 2}, 4)});
  require_reference_matches_fast(all, {noncontig64({3, 2}, 4)});
}
