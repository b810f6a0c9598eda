#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("add: hand-worked forward with broadcasting") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({10, 20, 30});
  require_values(add(a, b), {11, 22, 33, 14, 25, 36});
  require_values(a + 1.5, {2.5, 3.5, 4.5, 5.5, 6.5, 7.5});
}

TEST_CASE("gradcheck add") {
  auto fn = [](const std::vector<Tensor>& in) { return add(in[0], in[1]); };
  require_gradcheck("add", fn, {rand64({2, 3}, 1), rand64({2, 3}, 2)});
  require_gradcheck("add", fn, {rand64({2, 3}, 1), rand64({3}, 2)});
  require_gradcheck("add", fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
  require_gradcheck("add", fn, {noncontig64({3, 4}, 1), rand64({1, 4}, 2)});
}

TEST_CASE("add: float32 matches float64") {
  auto fn = [](const std::vector<Tensor>& in) { return add(in[0], in[1]); };
  require_f32_matches_f64(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
}

TEST_CASE("add: errors name the op and the shapes") {
  Tensor a = zeros({2, 3});
  CHECK_THROWS_WITH_AS(add(a, zeros({4})), doctest::Contains("add: shapes (2,3) and (4,)"), Error);
  CHECK_THROWS_WITH_AS(add(a, zeros({2, 3}, kF64)), doctest::Contains("add: dtypes differ"), Error);
  CHECK_THROWS_WITH_AS(add(a, tensor_i64({1, 2, 3})), doctest::Contains("add: argument 'b'"), Error);
  CHECK_THROWS_WITH_AS(add(Tensor(), a), doctest::Contains("add: argument 'a'"), Error);
}

TEST_CASE("add: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return add(in[0], in[1]); };
  require_cuda_matches_cpu(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2)});
  require_cuda_matches_cpu(fn, {noncontig64({3, 4}, 1), rand64({4}, 2)});
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return in[0] + 2.0; }, {rand64({5}, 3)});
  require_gradcheck("add", fn, {cuda_copy(rand64({2, 3}, 4)), cuda_copy(rand64({3}, 5))});
}
