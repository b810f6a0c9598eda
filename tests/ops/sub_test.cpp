#include "elementwise_test_util.h"
#include "ops/sub/sub.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("sub: hand-worked forward with broadcasting and scalars") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({10, 20, 30});
  require_values(sub(a, b), {-9, -18, -27, -6, -15, -24});
  require_values(b - a, {9, 18, 27, 6, 15, 24});
  require_values(a - 1.5, {-0.5, 0.5, 1.5, 2.5, 3.5, 4.5});
  require_values(10.0 - a, {9, 8, 7, 6, 5, 4});
}

TEST_CASE("sub: hand-worked backward reduces the broadcast gradient") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64).requires_grad_();
  Tensor b = tensor({10, 20, 30}, {3}, kF64).requires_grad_();
  sum(a - b).backward();
  require_values(a.grad(), {1, 1, 1, 1, 1, 1});
  require_values(b.grad(), {-2, -2, -2});  // b is used by both rows
}

TEST_CASE("gradcheck sub") {
  auto fn = [](const std::vector<Tensor>& in) { return sub(in[0], in[1]); };
  require_gradcheck("sub", fn, {rand64({2, 3}, 1), rand64({2, 3}, 2)});
  require_gradcheck("sub", fn, {rand64({3}, 1), rand64({2, 3}, 2)});
  require_gradcheck("sub", fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
  require_gradcheck("sub", fn, {noncontig64({3, 4}, 1), rand64({1, 4}, 2)});
  require_gradcheck("sub", [](const std::vector<Tensor>& in) { return 2.0 - in[0]; }, {rand64({2, 3}, 3)});
}

TEST_CASE("sub: float32 matches float64") {
  auto fn = [](const std::vector<Tensor>& in) { return sub(in[0], in[1]); };
  require_f32_matches_f64(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
}

TEST_CASE("sub: errors name the op and the shapes") {
  Tensor a = zeros({2, 3}), b = zeros({4});
  CHECK_THROWS_WITH_AS(sub(a, b), doctest::Contains("sub: shapes (2,3) and (4,)"), tg::Error);
  CHECK_THROWS_WITH_AS(sub(a, zeros({2, 3}, kF64)), doctest::Contains("sub: dtypes differ"), tg::Error);
  CHECK_THROWS_WITH_AS(sub(a, tensor_i64({1, 2, 3})), doctest::Contains("sub: argument 'b'"), tg::Error);
  CHECK_THROWS_WITH_AS(sub(2.0, tensor_i64({1})), doctest::Contains("sub: argument 'b'"), tg::Error);
  CHECK_THROWS_WITH_AS(sub(Tensor(), a), doctest::Contains("sub: argument 'a'"), tg::Error);
}

TEST_CASE("sub: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return sub(in[0], in[1]); };
  require_cuda_matches_cpu(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
  require_cuda_matches_cpu(fn, {noncontig64({3, 4}, 1), rand64({4}, 2)});
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return 2.0 - in[0]; }, {rand64({5}, 3)});
  require_gradcheck("sub", fn, {cuda_copy(rand64({2, 3}, 4)), cuda_copy(rand64({3}, 5))});
}
