#include "elementwise_test_util.h"
#include "ops/mul/mul.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("mul: hand-worked forward with broadcasting and scalars") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({10, 20, 30});
  require_values(mul(a, b), {10, 40, 90, 40, 100, 180});
  require_values(a * 0.5, {0.5, 1, 1.5, 2, 2.5, 3});
  require_values(-2.0 * a, {-2, -4, -6, -8, -10, -12});
}

TEST_CASE("mul: hand-worked backward") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64).requires_grad_();
  Tensor b = tensor({10, 20, 30}, {3}, kF64).requires_grad_();
  sum(a * b).backward();
  require_values(a.grad(), {10, 20, 30, 10, 20, 30});  // da = b, broadcast
  require_values(b.grad(), {5, 7, 9});                 // db = column sums of a
}

TEST_CASE("mul: a constant factor saves nothing it does not need") {
  Tensor a = rand64({2, 3}, 1);
  Tensor y = a * 3.0;
  REQUIRE(y.producer()->saved.size() == 1);
  CHECK(y.producer()->saved[0].name == "b");
}

TEST_CASE("gradcheck mul") {
  auto fn = [](const std::vector<Tensor>& in) { return mul(in[0], in[1]); };
  require_gradcheck("mul", fn, {rand64({2, 3}, 1), rand64({2, 3}, 2)});
  require_gradcheck("mul", fn, {rand64({2, 3}, 1), rand64({3}, 2)});
  require_gradcheck("mul", fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
  require_gradcheck("mul", fn, {noncontig64({3, 4}, 1), rand64({1, 4}, 2)});
  require_gradcheck("mul", fn, {rand64({2, 2}, 1), rand64({2, 2}, 2).detach()});  // b constant
  require_gradcheck("mul", [](const std::vector<Tensor>& in) { return 3.0 * in[0]; }, {rand64({2, 3}, 3)});
}

TEST_CASE("mul: float32 matches float64") {
  auto fn = [](const std::vector<Tensor>& in) { return mul(in[0], in[1]); };
  require_f32_matches_f64(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
}

TEST_CASE("mul: errors name the op and the shapes") {
  Tensor a = zeros({2, 3}), b = zeros({2, 2});
  CHECK_THROWS_WITH_AS(mul(a, b), doctest::Contains("mul: shapes (2,3) and (2,2)"), tg::Error);
  CHECK_THROWS_WITH_AS(mul(a, zeros({2, 3}, kF64)), doctest::Contains("mul: dtypes differ"), tg::Error);
  CHECK_THROWS_WITH_AS(mul(tensor_i64({1, 2, 3}), a), doctest::Contains("mul: argument 'a'"), tg::Error);
}

TEST_CASE("mul: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return mul(in[0], in[1]); };
  require_cuda_matches_cpu(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
  require_cuda_matches_cpu(fn, {noncontig64({3, 4}, 1), rand64({4}, 2)});
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return 3.0 * in[0]; }, {rand64({5}, 3)});
  require_gradcheck("mul", fn, {cuda_copy(rand64({2, 3}, 4)), cuda_copy(rand64({3}, 5))});
}
