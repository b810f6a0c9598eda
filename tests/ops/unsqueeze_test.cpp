#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/unsqueeze/unsqueeze.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("unsqueeze: hand-worked forward and backward") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  x.requires_grad_();
  Tensor u = unsqueeze(x, 1);
  CHECK(u.shape() == Shape{2, 1, 3});
  require_values(u, {1, 2, 3, 4, 5, 6});
  u.backward(tensor({6, 5, 4, 3, 2, 1}, {2, 1, 3}, kF64));  // dx = grad without the size-1 dim
  CHECK(x.grad().shape() == Shape{2, 3});
  require_values(x.grad(), {6, 5, 4, 3, 2, 1});
}

TEST_CASE("unsqueeze: a view sharing storage, every position") {
  Tensor x = zeros({2, 3});  // strides (3,1)
  Tensor front = unsqueeze(x, 0), middle = unsqueeze(x, 1), back = unsqueeze(x, -1);
  CHECK(front.shape() == Shape{1, 2, 3});
  CHECK(front.strides() == Shape{6, 3, 1});
  CHECK(middle.shape() == Shape{2, 1, 3});
  CHECK(middle.strides() == Shape{3, 3, 1});
  CHECK(back.shape() == Shape{2, 3, 1});
  CHECK(back.strides() == Shape{3, 1, 1});
  CHECK(unsqueeze(x, 2).shape() == Shape{2, 3, 1});
  CHECK(unsqueeze(x, -3).shape() == Shape{1, 2, 3});
  for (const Tensor& u : {front, middle, back}) {
    CHECK(u.storage() == x.storage());
    CHECK(u.is_contiguous());
  }
  fill_(x, 4);
  require_values(middle, std::vector<double>(6, 4));
  CHECK(unsqueeze(scalar(2), 0).shape() == Shape{1});
}

TEST_CASE("gradcheck unsqueeze") {
  require_gradcheck("unsqueeze", [](const std::vector<Tensor>& in) { return unsqueeze(in[0], 0); },
                    {rand64({3}, 1)});
  require_gradcheck("unsqueeze", [](const std::vector<Tensor>& in) { return unsqueeze(in[0], -1); },
                    {rand64({2, 3}, 2)});
  require_gradcheck("unsqueeze", [](const std::vector<Tensor>& in) { return unsqueeze(in[0], 1); },
                    {noncontig64({2, 3, 4}, 3)});
  // unsqueeze to broadcast: (2,) -> (2,1) + (3,) -> (2,3)
  require_gradcheck("unsqueeze", [](const std::vector<Tensor>& in) { return add(unsqueeze(in[0], 1), in[1]); },
                    {rand64({2}, 4), rand64({3}, 5)});
}

TEST_CASE("unsqueeze: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return add(unsqueeze(in[0], 1), in[1]); },
                          {rand64({2}, 6), rand64({3}, 7)});
}

TEST_CASE("unsqueeze: errors name the op and the shape") {
  Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(unsqueeze(x, 3),
                       doctest::Contains("unsqueeze: dim 3 is out of range for a tensor of shape (2,3)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(unsqueeze(x, -4), doctest::Contains("unsqueeze: dim -4"), tg::Error);
  CHECK_THROWS_WITH_AS(unsqueeze(Tensor(), 0), doctest::Contains("unsqueeze: argument 'x' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("unsqueeze: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return unsqueeze(in[0], 1) * 3; };
  require_cuda_matches_cpu_with_grads("unsqueeze (2,3)", fn, {rand64({2, 3}, 1)});
  require_cuda_matches_cpu_with_grads("unsqueeze non-contiguous (3,4)", fn, {noncontig64({3, 4}, 2)});
  require_gradcheck("unsqueeze", fn, on_gpu({noncontig64({3, 4}, 2)}));
}
