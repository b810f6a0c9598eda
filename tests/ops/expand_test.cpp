#include "test_util.h"
#include "cuda_parity_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("expand: hand-worked forward and backward") {
  Tensor x = tensor({1, 2, 3}, {3, 1}, kF64);
  x.requires_grad_();
  Tensor y = expand(x, {3, 2});
  require_values(y, {1, 1, 2, 2, 3, 3});
  y.backward(tensor({1, 2, 3, 4, 5, 6}, {3, 2}, kF64));  // dx = row sums: 1+2, 3+4, 5+6
  require_values(x.grad(), {3, 7, 11});
  Tensor b = tensor({1, 2}, {2}, kF64);
  b.requires_grad_();
  Tensor z = expand(b, {3, -1});  // a new leading dim; -1 keeps 2
  CHECK(z.shape() == Shape{3, 2});
  z.backward(tensor({1, 2, 3, 4, 5, 6}, {3, 2}, kF64));  // dx = column sums: 1+3+5, 2+4+6
  require_values(b.grad(), {9, 12});
}

TEST_CASE("expand: a stride-0 view sharing storage") {
  Tensor x = zeros({3, 1});
  Tensor y = expand(x, {2, 3, 4});
  CHECK(y.storage() == x.storage());
  CHECK(y.strides() == Shape{0, 1, 0});
  CHECK(y.offset() == 0);
  CHECK(expand(x, {3, 1}).impl() == x.impl());  // same shape: x itself
  copy_(x, tensor({1, 2, 3}, {3, 1}));
  require_values(expand(x, {3, 2}), {1, 1, 2, 2, 3, 3});
  Tensor inner = make_view(zeros({4}), {2}, {1}, 2);
  CHECK(expand(inner, {3, 2}).offset() == 2);
}

TEST_CASE("gradcheck expand") {
  require_gradcheck("expand", [](const std::vector<Tensor>& in) { return expand(in[0], {3, 4}); }, {rand64({3, 1}, 1)});
  require_gradcheck("expand", [](const std::vector<Tensor>& in) { return expand(in[0], {2, 3, 2}); }, {rand64({2}, 2)});
  require_gradcheck("expand", [](const std::vector<Tensor>& in) { return expand(in[0], {2, 1, 3}); },
                    {rand64({1, 1}, 3)});
  require_gradcheck("expand", [](const std::vector<Tensor>& in) { return expand(in[0], {4, 2, 3}); },
                    {noncontig64({2, 3}, 4)});
}

TEST_CASE("expand: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return expand(in[0], {2, 3, 4}); }, {rand64({3, 1}, 5)});
}

TEST_CASE("expand: errors name the op and the shapes") {
  Tensor x = zeros({3, 2});
  CHECK_THROWS_WITH_AS(expand(x, {2}), doctest::Contains("expand: cannot expand x (3,2) to fewer dims (2,)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(expand(x, {3, 4}), doctest::Contains("expand: x (3,2) cannot be expanded to (3,4) (dim 1)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(expand(x, {-1, 3, 2}),
                       doctest::Contains("expand: x (3,2) cannot be expanded to (-1,3,2) (dim 0)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(expand(Tensor(), {2}), doctest::Contains("expand: argument 'x' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("expand: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return expand(in[0], {2, 3, 4}); };
  require_cuda_matches_cpu_with_grads("expand (3,1)", fn, {rand64({3, 1}, 1)});
  require_cuda_matches_cpu_with_grads("expand (4)", fn, {rand64({4}, 2)});
  require_cuda_matches_cpu_with_grads("expand (1,3,1)", fn, {rand64({1, 3, 1}, 3)});
  require_gradcheck("expand", fn, on_gpu({rand64({1, 3, 1}, 3)}));
}
