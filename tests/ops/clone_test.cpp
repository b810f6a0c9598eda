#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/clone/clone.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("clone: a new contiguous copy, hand-worked backward") {
  Tensor base = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  Tensor x = make_view(base, {3, 2}, {1, 3}, 0);  // base transposed: [[1,4],[2,5],[3,6]]
  x.requires_grad_();
  Tensor c = clone(x);
  CHECK(c.storage() != x.storage());
  CHECK(c.is_contiguous());
  CHECK(c.strides() == Shape{2, 1});
  require_values(c, {1, 4, 2, 5, 3, 6});
  fill_(base, 0);  // the clone does not see later writes to x's storage
  require_values(c, {1, 4, 2, 5, 3, 6});
  c.backward(tensor({1, 2, 3, 4, 5, 6}, {3, 2}, kF64));  // dx = grad
  require_values(x.grad(), {1, 2, 3, 4, 5, 6});
  Tensor y = ones({2});
  CHECK(clone(y).storage() != y.storage());  // even a contiguous x is copied
}

TEST_CASE("gradcheck clone") {
  auto fn = [](const std::vector<Tensor>& in) { return clone(in[0]); };
  require_gradcheck("clone", fn, {rand64({2, 3}, 1)});
  require_gradcheck("clone", fn, {noncontig64({2, 3, 4}, 2)});
  require_gradcheck("clone", [](const std::vector<Tensor>& in) { return add(clone(in[0]), in[1]); },
                    {rand64({2, 1}, 3), rand64({3}, 4)});
}

TEST_CASE("clone: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return clone(in[0]); }, {noncontig64({3, 2}, 5)});
}

TEST_CASE("clone: errors name the op") {
  CHECK_THROWS_WITH_AS(clone(Tensor()), doctest::Contains("clone: argument 'x' is an undefined tensor"), tg::Error);
}

TEST_CASE("clone: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return clone(in[0]); };
  require_cuda_matches_cpu_with_grads("clone (2,3)", fn, {rand64({2, 3}, 1)});
  require_cuda_matches_cpu_with_grads("clone non-contiguous (3,4)", fn, {noncontig64({3, 4}, 2)});
  require_cuda_matches_cpu_with_grads("clone 0-d", fn, {rand64({}, 3)});
  require_gradcheck("clone", fn, on_gpu({rand64({}, 3)}));
}
