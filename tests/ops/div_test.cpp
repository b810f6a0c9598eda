#include "elementwise_test_util.h"
#include "ops/div/div.h"

#include <cmath>

using namespace tg;
using namespace tg::test;

TEST_CASE("div: hand-worked forward with broadcasting and scalars") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({2, 4, 8});
  require_values(div(a, b), {0.5, 0.5, 0.375, 2, 1.25, 0.75});
  require_values(a / 4.0, {0.25, 0.5, 0.75, 1, 1.25, 1.5});
  require_values(6.0 / a, {6, 3, 2, 1.5, 1.2, 1});
  Tensor q = tensor({1, -1, 0}) / 0.0;  // IEEE: no throw
  CHECK(std::isinf(q.to_vector<float>()[0]));
  CHECK(std::isnan(q.to_vector<float>()[2]));
}

TEST_CASE("div: hand-worked backward") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64).requires_grad_();
  Tensor b = tensor({2, 4, 8}, {3}, kF64).requires_grad_();
  sum(a / b).backward();
  require_values(a.grad(), {0.5, 0.25, 0.125, 0.5, 0.25, 0.125});  // 1 / b
  // db = -sum over rows of a / b^2: -(1+4)/4, -(2+5)/16, -(3+6)/64
  require_values(b.grad(), {-1.25, -0.4375, -0.140625});
}

TEST_CASE("gradcheck div") {
  auto fn = [](const std::vector<Tensor>& in) { return div(in[0], in[1]); };
  require_gradcheck("div", fn, {rand64({2, 3}, 1), rand64({2, 3}, 2, 0.5, 2)});
  require_gradcheck("div", fn, {rand64({2, 3}, 1), rand64({3}, 2, -2, -0.5)});
  require_gradcheck("div", fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2, 0.5, 2)});
  require_gradcheck("div", fn, {rand64({1, 4}, 1), noncontig64({3, 4}, 2, 0.5, 2)});
  require_gradcheck("div", fn, {noncontig64({3, 4}, 1), rand64({3, 1}, 2, 0.5, 2)});
  require_gradcheck("div", [](const std::vector<Tensor>& in) { return 2.0 / in[0]; }, {rand64({2, 3}, 3, 0.5, 2)});
  require_gradcheck("div", [](const std::vector<Tensor>& in) { return in[0] / 2.0; }, {noncontig64({2, 3}, 3)});
}

TEST_CASE("div: float32 matches float64") {
  auto fn = [](const std::vector<Tensor>& in) { return div(in[0], in[1]); };
  require_f32_matches_f64(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2, 0.5, 2)});
}

TEST_CASE("div: errors name the op and the shapes") {
  Tensor a = ones({2, 3}), b = ones({3, 2});
  CHECK_THROWS_WITH_AS(div(a, b), doctest::Contains("div: shapes (2,3) and (3,2)"), tg::Error);
  CHECK_THROWS_WITH_AS(div(a, ones({2, 3}, kF64)), doctest::Contains("div: dtypes differ"), tg::Error);
  CHECK_THROWS_WITH_AS(div(1.0, tensor_i64({1, 2})), doctest::Contains("div: argument 'b'"), tg::Error);
}

TEST_CASE("div: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return div(in[0], in[1]); };
  require_cuda_matches_cpu(fn, {rand64({4, 1, 3}, 1), rand64({2, 1}, 2, 0.5, 2)});
  require_cuda_matches_cpu(fn, {noncontig64({3, 4}, 1), rand64({4}, 2, 0.5, 2)});
  require_cuda_matches_cpu([](const std::vector<Tensor>& in) { return 2.0 / in[0]; }, {rand64({5}, 3, 0.5, 2)});
  require_gradcheck("div", fn, {cuda_copy(rand64({2, 3}, 4)), cuda_copy(rand64({3}, 5, 0.5, 2))});
}
