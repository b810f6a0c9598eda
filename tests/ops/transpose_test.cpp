#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/transpose/transpose.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("transpose: hand-worked forward and backward") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);  // [[1,2,3],[4,5,6]]
  x.requires_grad_();
  Tensor t = transpose(x, 0, 1);
  CHECK(t.shape() == Shape{3, 2});
  require_values(t, {1, 4, 2, 5, 3, 6});  // [[1,4],[2,5],[3,6]]
  // grad (3,2) [[0,1],[2,3],[4,5]] transposed back: [[0,2,4],[1,3,5]]
  t.backward(tensor({0, 1, 2, 3, 4, 5}, {3, 2}, kF64));
  require_values(x.grad(), {0, 2, 4, 1, 3, 5});
}

TEST_CASE("transpose: a view sharing storage") {
  Tensor x = zeros({2, 3, 4});
  Tensor t = transpose(x, -1, 0);  // (4,3,2)
  CHECK(t.storage() == x.storage());
  CHECK(t.shape() == Shape{4, 3, 2});
  CHECK(t.strides() == Shape{1, 4, 12});
  CHECK(t.offset() == 0);
  CHECK_FALSE(t.is_contiguous());
  fill_(make_view(x, {1}, {1}, 23), 5);  // x[1,2,3] = 5 (storage offset 23), seen as t[3,2,1]
  CHECK(t.to_vector<float>()[3 * 6 + 2 * 2 + 1] == 5);
  CHECK(t.to_vector<float>()[0] == 0);
  Tensor same = transpose(x, 1, 1);
  CHECK(same.shape() == x.shape());
  CHECK(same.strides() == x.strides());
}

TEST_CASE("gradcheck transpose") {
  require_gradcheck("transpose", [](const std::vector<Tensor>& in) { return transpose(in[0], 0, 1); },
                    {rand64({2, 3}, 1)});
  require_gradcheck("transpose", [](const std::vector<Tensor>& in) { return transpose(in[0], 0, 2); },
                    {rand64({2, 3, 4}, 2)});
  require_gradcheck("transpose", [](const std::vector<Tensor>& in) { return transpose(in[0], -1, -2); },
                    {noncontig64({2, 3, 4}, 3)});
  // a transposed view feeding a broadcasting op
  require_gradcheck("transpose", [](const std::vector<Tensor>& in) { return add(transpose(in[0], 0, 1), in[1]); },
                    {rand64({3, 2}, 4), rand64({3}, 5)});
}

TEST_CASE("transpose: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return transpose(in[0], 1, 2); },
                          {rand64({2, 3, 4}, 6)});
}

TEST_CASE("transpose: errors name the op and the shape") {
  Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(transpose(x, 0, 2),
                       doctest::Contains("transpose: dim 2 is out of range for a tensor of shape (2,3)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(transpose(x, -3, 0), doctest::Contains("transpose: dim -3"), tg::Error);
  CHECK_THROWS_WITH_AS(transpose(Tensor(), 0, 1), doctest::Contains("transpose: argument 'x' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("transpose: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return transpose(in[0], 0, 2); };
  const GradcheckFn fn2 = [](const std::vector<Tensor>& in) { return transpose(in[0], 0, 1); };
  require_cuda_matches_cpu_with_grads("transpose (2,3,4)", fn, {rand64({2, 3, 4}, 1)});
  require_cuda_matches_cpu_with_grads("transpose non-contiguous (3,4)", fn2, {noncontig64({3, 4}, 2)});
  require_gradcheck("transpose", fn2, on_gpu({noncontig64({3, 4}, 2)}));
}
