#include "ops/fused/linear/linear.h"

#include "ops/add/add.h"
#include "ops/matmul/matmul.h"
#include "ops/transpose/transpose.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("linear: hand-worked forward") {
  // x (2,2) = [[1,2],[3,4]], weight (3,2) = [[1,0],[1,1],[0,2]], bias = [10,20,30]
  //   x @ weight^T = [[1, 3, 4], [3, 7, 8]], plus the bias in every row
  Tensor x = tensor({1, 2, 3, 4}, {2, 2});
  Tensor w = tensor({1, 0, 1, 1, 0, 2}, {3, 2});
  Tensor b = tensor({10, 20, 30});
  require_values(linear(x, w, b), {11, 23, 34, 13, 27, 38});
  require_values(linear(x, w), {1, 3, 4, 3, 7, 8});
  require_values(linear(tensor({1, 2}), w, b), {11, 23, 34});  // a 1-D x: one row
}

TEST_CASE("gradcheck linear") {
  auto fn = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in.size() > 2 ? in[2] : Tensor()); };
  require_gradcheck("linear", fn, {rand64({2, 3, 4}, 1), rand64({5, 4}, 2), rand64({5}, 3)});
  require_gradcheck("linear", fn, {rand64({3, 4}, 1), rand64({2, 4}, 2)});  // no bias
  require_gradcheck("linear", fn, {rand64({4}, 1), rand64({3, 4}, 2), rand64({3}, 3)});
  require_gradcheck("linear", fn, {noncontig64({3, 4}, 1), noncontig64({4, 4}, 2), rand64({4}, 3)});
}

TEST_CASE("linear: gradients equal those of matmul + add") {
  Tensor x = rand64({2, 3, 4}, 1).requires_grad_(), w = rand64({5, 4}, 2).requires_grad_();
  Tensor b = rand64({5}, 3).requires_grad_();
  Tensor g = rand64({2, 3, 5}, 4);
  linear(x, w, b).backward(g);
  const Tensor dx = x.grad(), dw = w.grad(), db = b.grad();
  x.zero_grad();
  w.zero_grad();
  b.zero_grad();
  add(matmul(x, transpose(w, 0, 1)), b).backward(g);
  require_close(dx, x.grad(), 1e-12);
  require_close(dw, w.grad(), 1e-12);
  require_close(db, b.grad(), 1e-12);
}

TEST_CASE("linear: size 0 dims give empty or zero gradients") {
  // no rows, no input features, no output features: the fast rule's paired products must not
  // take these
  struct Case { Shape x, weight; };
  for (const Case& c : {Case{{2, 0, 3}, {4, 3}}, Case{{2, 5, 0}, {4, 0}}, Case{{2, 5, 3}, {0, 3}}}) {
    CAPTURE(shape_str(c.x));
    const Tensor x = ones(c.x).requires_grad_(), w = ones(c.weight).requires_grad_();
    const Tensor b = ones({c.weight[0]}).requires_grad_();
    const Tensor y = linear(x, w, b);
    y.backward(ones(y.shape()));
    CHECK(x.grad().shape() == c.x);
    CHECK(w.grad().shape() == c.weight);
    for (float v : x.grad().to_vector<float>()) CHECK(v == float(c.weight[0]));
    for (float v : w.grad().to_vector<float>()) CHECK(v == float(c.x[0] * c.x[1]));
    for (float v : b.grad().to_vector<float>()) CHECK(v == float(c.x[0] * c.x[1]));
  }
}

TEST_CASE("linear: float32 matches float64") {
  auto fn = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); };
  require_f32_matches_f64(fn, {rand64({3, 40, 24}, 1), rand64({20, 24}, 2), rand64({20}, 3)});
}

TEST_CASE("linear: errors name the op and the shapes") {
  Tensor x = zeros({2, 3}), w = zeros({4, 3}), b = zeros({4});
  CHECK_THROWS_WITH_AS(linear(x, zeros({4, 2}), b), doctest::Contains("linear: expected x (..., in)"), Error);
  CHECK_THROWS_WITH_AS(linear(x, zeros({4, 2}), b), doctest::Contains("x (2,3) weight (4,2) bias (4,)"), Error);
  CHECK_THROWS_WITH_AS(linear(x, zeros({3}), b), doctest::Contains("linear: expected"), Error);
  CHECK_THROWS_WITH_AS(linear(x, w, zeros({3})), doctest::Contains("bias (3,)"), Error);
  CHECK_THROWS_WITH_AS(linear(x, zeros({4, 3}, kF64), b), doctest::Contains("linear: dtypes differ"), Error);
  CHECK_THROWS_WITH_AS(linear(tensor_i64({1, 2, 3}), w, b), doctest::Contains("linear: argument 'x'"), Error);
}

TEST_CASE("linear: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); };
  require_cuda_matches_cpu(fn, {rand64({2, 3, 4}, 1), rand64({5, 4}, 2), rand64({5}, 3)});
}

TEST_CASE("linear: CUDA matches CPU without a bias, for a 1-D x and non-contiguous operands") {
  if (!gpu_available_or_skip()) return;
  auto no_bias = [](const std::vector<Tensor>& in) { return linear(in[0], in[1]); };
  require_cuda_matches_cpu(no_bias, {rand64({3, 4}, 1), rand64({2, 4}, 2)});
  auto fn = [](const std::vector<Tensor>& in) { return linear(in[0], in[1], in[2]); };
  require_cuda_matches_cpu(fn, {rand64({4}, 1), rand64({3, 4}, 2), rand64({3}, 3)});
  require_cuda_matches_cpu(fn, {noncontig64({3, 4}, 1), noncontig64({4, 4}, 2), rand64({4}, 3)});
}

namespace {

// The ops that linear records on `device`, with every input requiring grad.
std::vector<std::string> linear_tape(Device device) {
  tape().clear();
  Tensor x = to_device_copy(rand64({2, 3, 4}, 1), device).requires_grad_();
  Tensor w = to_device_copy(rand64({5, 4}, 2), device).requires_grad_();
  Tensor b = to_device_copy(rand64({5}, 3), device).requires_grad_();
  const Tensor y = linear(x, w, b);
  std::vector<std::string> ops;
  for (const auto& entry : tape().entries()) ops.push_back(entry->op);
  tape().clear();
  return ops;
}

}  // namespace

TEST_CASE("linear: one tape entry on the CPU") {
  CHECK(linear_tape(kCPU) == std::vector<std::string>{"linear"});
}

TEST_CASE("linear: one tape entry on a GPU, as on the CPU") {
  if (!gpu_available_or_skip()) return;
  CHECK(linear_tape(Device::cuda()) == std::vector<std::string>{"linear"});
}
