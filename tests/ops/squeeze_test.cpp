#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/squeeze/squeeze.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("squeeze: hand-worked forward and backward") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 1, 3, 1}, kF64);
  x.requires_grad_();
  Tensor s = squeeze(x);
  CHECK(s.shape() == Shape{2, 3});
  require_values(s, {1, 2, 3, 4, 5, 6});
  s.backward(tensor({6, 5, 4, 3, 2, 1}, {2, 3}, kF64));  // dx = grad with the size-1 dims back
  CHECK(x.grad().shape() == Shape{2, 1, 3, 1});
  require_values(x.grad(), {6, 5, 4, 3, 2, 1});
}

TEST_CASE("squeeze: views sharing storage, one dim or all") {
  Tensor x = zeros({2, 1, 3, 1});  // strides (3,3,1,1)
  Tensor all = squeeze(x), one = squeeze(x, 1), last = squeeze(x, -1);
  CHECK(all.shape() == Shape{2, 3});
  CHECK(all.strides() == Shape{3, 1});
  CHECK(one.shape() == Shape{2, 3, 1});
  CHECK(last.shape() == Shape{2, 1, 3});
  CHECK(squeeze(x, 0).shape() == x.shape());  // size 2: left alone, as in PyTorch
  for (const Tensor& s : {all, one, last}) {
    CHECK(s.storage() == x.storage());
    CHECK(s.offset() == 0);
  }
  fill_(x, -1);
  require_values(all, std::vector<double>(6, -1));
  // a non-contiguous x keeps its strides on the remaining dims
  Tensor t = make_view(zeros({3, 2}), {2, 1, 3}, {1, 1, 2}, 0);
  CHECK(squeeze(t).strides() == Shape{1, 2});
  CHECK(squeeze(scalar(1)).shape() == Shape{});
  CHECK(squeeze(ones({1, 1})).shape() == Shape{});
}

TEST_CASE("gradcheck squeeze") {
  require_gradcheck("squeeze", [](const std::vector<Tensor>& in) { return squeeze(in[0]); },
                    {rand64({2, 1, 3, 1}, 1)});
  require_gradcheck("squeeze", [](const std::vector<Tensor>& in) { return squeeze(in[0], 0); },
                    {rand64({1, 3}, 2)});
  require_gradcheck("squeeze", [](const std::vector<Tensor>& in) { return squeeze(in[0], 0); },
                    {noncontig64({1, 3, 2}, 3)});
  require_gradcheck("squeeze", [](const std::vector<Tensor>& in) { return add(squeeze(in[0], 1), in[1]); },
                    {rand64({2, 1}, 4), rand64({3, 1}, 5)});
}

TEST_CASE("squeeze: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return squeeze(in[0]); }, {rand64({1, 3, 1, 2}, 6)});
}

TEST_CASE("squeeze: errors name the op and the shape") {
  Tensor x = zeros({2, 1});
  CHECK_THROWS_WITH_AS(squeeze(x, 2), doctest::Contains("squeeze: dim 2 is out of range for a tensor of shape (2,1)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(squeeze(Tensor()), doctest::Contains("squeeze: argument 'x' is an undefined tensor"), tg::Error);
}

TEST_CASE("squeeze: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return squeeze(in[0], 1) * 3; };
  require_cuda_matches_cpu_with_grads("squeeze (2,1,3)", fn, {rand64({2, 1, 3}, 1)});
  require_gradcheck("squeeze", fn, on_gpu({rand64({2, 1, 3}, 1)}));
}
