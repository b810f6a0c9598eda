#include "test_util.h"
#include "cuda_parity_test_util.h"

using namespace tg;
using namespace tg::test;

// reshape / view / flatten live in ops/reshape; view records "view" entries on the tape, reshape
// and flatten "reshape" ones (reshape of a non-contiguous x records "contiguous" first).

TEST_CASE("reshape: hand-worked forward and backward") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  x.requires_grad_();
  Tensor y = reshape(x, {3, -1});  // -1 -> 2
  CHECK(y.shape() == Shape{3, 2});
  require_values(y, {1, 2, 3, 4, 5, 6});
  y.backward(tensor({6, 5, 4, 3, 2, 1}, {3, 2}, kF64));  // dx = grad in x's shape
  CHECK(x.grad().shape() == Shape{2, 3});
  require_values(x.grad(), {6, 5, 4, 3, 2, 1});
  CHECK(flatten(ones({2, 3, 1})).shape() == Shape{6});
  CHECK(reshape(scalar(2), {1, 1}).shape() == Shape{1, 1});
  CHECK(reshape(zeros({0, 3}), {3, 0, 2}).shape() == Shape{3, 0, 2});
}

TEST_CASE("view / reshape: share storage when contiguous, reshape copies otherwise") {
  Tensor x = zeros({2, 3});
  Tensor v = view(x, {3, 2}), r = reshape(x, {-1}), f = flatten(x);
  for (const Tensor& t : {v, r, f}) CHECK(t.storage() == x.storage());
  CHECK(v.strides() == Shape{2, 1});
  CHECK(r.shape() == Shape{6});
  Tensor inner = make_view(x, {2}, {1}, 4);  // elements 4 and 5 of x
  CHECK(view(inner, {1, 2}).offset() == 4);
  copy_(x, tensor({1, 2, 3, 4, 5, 6}, {2, 3}));  // writes to the base show through the views
  require_values(v, {1, 2, 3, 4, 5, 6});
  require_values(view(inner, {2, 1}), {5, 6});
  fill_(f, 7);  // and writes through a view show in the base
  require_values(x, std::vector<double>(6, 7));
  Tensor t = make_view(tensor({1, 2, 3, 4, 5, 6}, {2, 3}), {3, 2}, {1, 3}, 0);  // [[1,4],[2,5],[3,6]]
  Tensor copied = reshape(t, {6});
  CHECK(copied.storage() != t.storage());
  require_values(copied, {1, 4, 2, 5, 3, 6});
}

TEST_CASE("gradcheck reshape") {
  require_gradcheck("reshape", [](const std::vector<Tensor>& in) { return reshape(in[0], {3, 2}); },
                    {rand64({2, 3}, 1)});
  require_gradcheck("view", [](const std::vector<Tensor>& in) { return view(in[0], {-1, 4}); }, {rand64({2, 2, 2}, 2)});
  require_gradcheck("contiguous", [](const std::vector<Tensor>& in) { return reshape(in[0], {4, -1}); },
                    {noncontig64({2, 3, 4}, 3)});
  require_gradcheck("reshape", [](const std::vector<Tensor>& in) { return add(flatten(in[0]), in[1]); },
                    {rand64({2, 2}, 4), rand64({3, 1}, 5)});
}

TEST_CASE("reshape: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return reshape(in[0], {-1, 2}); },
                          {noncontig64({2, 3, 2}, 6)});
}

TEST_CASE("reshape / view: errors name the op and the shapes") {
  Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(reshape(x, {4, 2}),
                       doctest::Contains("reshape: shape (4,2) is invalid for input x (2,3) of 6 elements"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(reshape(x, {-1, -1}), doctest::Contains("reshape: only one dim can be -1, got (-1,-1)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(reshape(x, {-1, 4}), doctest::Contains("reshape: shape (-1,4) is invalid for input x (2,3)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(reshape(x, {-2, -3}), doctest::Contains("reshape: invalid size -2 in (-2,-3)"), tg::Error);
  CHECK_THROWS_WITH_AS(reshape(zeros({0, 3}), {0, -1}), doctest::Contains("reshape: shape (0,-1) is invalid"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(view(x, {5}), doctest::Contains("view: shape (5,) is invalid for input x (2,3)"), tg::Error);
  Tensor t = make_view(x, {3, 2}, {1, 3}, 0);
  CHECK_THROWS_WITH_AS(view(t, {6}), doctest::Contains("view: x (3,2) with strides (1,3) is not contiguous"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(flatten(Tensor()), doctest::Contains("reshape: argument 'x' is an undefined tensor"), tg::Error);
}

TEST_CASE("reshape: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return reshape(in[0], {3, -1}); };
  require_cuda_matches_cpu_with_grads("reshape (2,3,2)", fn, {rand64({2, 3, 2}, 1)});
  require_cuda_matches_cpu_with_grads("reshape non-contiguous (4,3)", fn, {noncontig64({4, 3}, 2)});
  require_gradcheck("reshape", fn, on_gpu({noncontig64({4, 3}, 2)}));
}
