#include "test_util.h"
#include "cuda_parity_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("contiguous: hand-worked forward and backward") {
  Tensor base = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  Tensor x = make_view(base, {3, 2}, {1, 3}, 0);  // base transposed: [[1,4],[2,5],[3,6]]
  x.requires_grad_();
  Tensor c = contiguous(x);
  CHECK(c.storage() != x.storage());
  CHECK(c.strides() == Shape{2, 1});
  require_values(c, {1, 4, 2, 5, 3, 6});
  c.backward(tensor({1, 2, 3, 4, 5, 6}, {3, 2}, kF64));  // dx = grad
  require_values(x.grad(), {1, 2, 3, 4, 5, 6});
  fill_(base, 0);  // the copy is independent of the base
  require_values(c, {1, 4, 2, 5, 3, 6});
}

TEST_CASE("contiguous: x itself when already contiguous") {
  Tensor x = rand64({2, 3}, 1);
  Tensor c = contiguous(x);
  CHECK(c.impl() == x.impl());
  CHECK(c.is_leaf());  // no tape entry
  Tensor row = make_view(x, {3}, {1}, 3);  // a contiguous view at an offset
  CHECK(contiguous(row).impl() == row.impl());
  fill_(x, 2);
  require_values(c, std::vector<double>(6, 2));
}

TEST_CASE("gradcheck contiguous") {
  auto fn = [](const std::vector<Tensor>& in) { return contiguous(in[0]); };
  require_gradcheck("contiguous", fn, {noncontig64({2, 3}, 1)});
  require_gradcheck("contiguous", fn, {noncontig64({2, 3, 4}, 2)});
  // an expanded view made contiguous: each element is copied 4 times, so its gradient sums 4
  require_gradcheck("contiguous", [](const std::vector<Tensor>& in) { return contiguous(expand(in[0], {3, 4})); },
                    {rand64({3, 1}, 3)});
}

TEST_CASE("contiguous: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return contiguous(in[0]); }, {noncontig64({3, 4}, 4)});
}

TEST_CASE("contiguous: errors name the op") {
  CHECK_THROWS_WITH_AS(contiguous(Tensor()), doctest::Contains("contiguous: argument 'x' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("contiguous: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return contiguous(in[0]) * 2; };
  require_cuda_matches_cpu_with_grads("contiguous non-contiguous (3,4)", fn, {noncontig64({3, 4}, 1)});
  require_cuda_matches_cpu_with_grads("contiguous (2,3,4)", fn, {rand64({2, 3, 4}, 3)});
  // A non-contiguous input: contiguous() of a contiguous tensor is the tensor, with no tape entry.
  require_gradcheck("contiguous", fn, on_gpu({noncontig64({3, 4}, 1)}));
}
