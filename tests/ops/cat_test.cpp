#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/cat/cat.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("cat: hand-worked forward and backward") {
  Tensor a = tensor({1, 2, 3, 4}, {2, 2}, kF64);  // [[1,2],[3,4]]
  Tensor b = tensor({5, 6}, {2, 1}, kF64);        // [[5],[6]]
  Tensor c = tensor({7, 8}, {1, 2}, kF64);        // [[7,8]]
  a.requires_grad_();
  b.requires_grad_();
  require_values(cat({a, c}, 0), {1, 2, 3, 4, 7, 8});
  Tensor y = cat({a, b}, -1);  // [[1,2,5],[3,4,6]]
  CHECK(y.shape() == Shape{2, 3});
  require_values(y, {1, 2, 5, 3, 4, 6});
  CHECK(y.storage() != a.storage());  // a copy
  y.backward(tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64));  // columns 0-1 go to a, column 2 to b
  require_values(a.grad(), {1, 2, 4, 5});
  require_values(b.grad(), {3, 6});
  // an input that needs no gradient gets none; the others still do
  a.zero_grad();
  cat({c, a}, 0).backward(tensor({1, 2, 3, 4, 5, 6}, {3, 2}, kF64));
  require_values(a.grad(), {3, 4, 5, 6});
  CHECK_FALSE(c.grad().defined());
}

TEST_CASE("cat: non-contiguous and empty inputs") {
  Tensor base = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = make_view(base, {3, 2}, {1, 3}, 0);  // base transposed: [[1,4],[2,5],[3,6]]
  require_values(cat({t, zeros({0, 2}), t}, 0), {1, 4, 2, 5, 3, 6, 1, 4, 2, 5, 3, 6});
  require_values(cat({t}, 1), {1, 4, 2, 5, 3, 6});
}

TEST_CASE("gradcheck cat") {
  require_gradcheck("cat", [](const std::vector<Tensor>& in) { return cat(in, 0); },
                    {rand64({2, 3}, 1), rand64({1, 3}, 2)});
  require_gradcheck("cat", [](const std::vector<Tensor>& in) { return cat(in, -1); },
                    {rand64({2, 1, 2}, 3), rand64({2, 1, 3}, 4), rand64({2, 1, 1}, 5)});
  require_gradcheck("cat", [](const std::vector<Tensor>& in) { return cat(in, 1); },
                    {noncontig64({3, 2}, 6), rand64({3, 4}, 7)});
  // the same tensor twice: its two gradients add up; cat then broadcast
  require_gradcheck("cat", [](const std::vector<Tensor>& in) { return add(cat({in[0], in[0]}, 0), in[1]); },
                    {rand64({2, 3}, 8), rand64({3}, 9)});
}

TEST_CASE("cat: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return cat(in, 1); },
                          {rand64({2, 2}, 10), noncontig64({2, 3}, 11)});
}

TEST_CASE("cat: errors name the op and the shapes") {
  Tensor a = zeros({2, 2});
  CHECK_THROWS_WITH_AS(cat({}, 0), doctest::Contains("cat: expected at least one tensor"), tg::Error);
  CHECK_THROWS_WITH_AS(cat({a, zeros({3, 3})}, 0),
                       doctest::Contains("cat: tensors[1] (3,3) does not match tensors[0] (2,2) in every dim "
                                         "except dim 0"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(cat({a, zeros({2, 2, 1})}, 0), doctest::Contains("cat: tensors[1] (2,2,1) does not match"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(cat({a, zeros({2, 2}, kF64)}, 0), doctest::Contains("cat: dtypes differ"), tg::Error);
  CHECK_THROWS_WITH_AS(cat({a, a}, 2), doctest::Contains("cat: dim 2 is out of range for a tensor of shape (2,2)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(cat({scalar(1), scalar(2)}, 0), doctest::Contains("cat: tensors[0] is a 0-d tensor"), tg::Error);
  CHECK_THROWS_WITH_AS(cat({a, Tensor()}, 0), doctest::Contains("cat: argument 'tensors[1]' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("cat: tensors on different devices (GPU)") {
  if (!tg::test::gpu_available_or_skip()) return;
  Tensor a = zeros({2, 2});
  CHECK_THROWS_WITH_AS(cat({a, zeros({2, 2}, kF32, Device::cuda())}, 0),
                       doctest::Contains("cat: tensors are on different devices"), tg::Error);
  Tensor b = ones({1, 2}, kF32, Device::cuda());
  Tensor y = cat({to_device_copy(a, Device::cuda()), b}, 0);
  CHECK(y.is_cuda());
  require_values(y, {0, 0, 0, 0, 1, 1});
}

TEST_CASE("cat: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return cat({in[0], in[1], in[0]}, 1); };
  require_cuda_matches_cpu_with_grads("cat (2,3),(2,1),(2,3) dim 1", fn, {rand64({2, 3}, 1), rand64({2, 1}, 2)});
  require_cuda_matches_cpu_with_grads("cat non-contiguous (4,3),(4,2) dim 1", fn,
                                      {noncontig64({4, 3}, 3), rand64({4, 2}, 4)});
  require_gradcheck("cat", fn, on_gpu({noncontig64({3, 2}, 5), rand64({3, 4}, 6)}));
}
