#include "test_util.h"
#include "cuda_parity_test_util.h"

#include <limits>

#include "ops/slice/slice.h"

using namespace tg;
using namespace tg::test;

namespace {
constexpr int64_t kEnd = std::numeric_limits<int64_t>::max();
Tensor grid() { return tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 5}, kF64); }  // [[0..4],[5..9]]
}  // namespace

TEST_CASE("slice: hand-worked forward, Python-like bounds") {
  Tensor x = grid();
  require_values(slice(x, 1, 1, 4), {1, 2, 3, 6, 7, 8});
  require_values(slice(x, 1, -3, 100), {2, 3, 4, 7, 8, 9});  // -3 -> 2, 100 clamped to 5
  require_values(slice(x, 1, -100, 2), {0, 1, 5, 6});         // -100 clamped to 0
  require_values(slice(x, 1, 0, 5, 2), {0, 2, 4, 5, 7, 9});
  require_values(slice(x, -1, 1, kEnd, 3), {1, 4, 6, 9});
  require_values(slice(x, 0, -1, kEnd), {5, 6, 7, 8, 9});
  CHECK(slice(x, 1, 4, 2).shape() == Shape{2, 0});            // end before start: empty
  CHECK(slice(x, 1, 5, kEnd).shape() == Shape{2, 0});
  require_values(narrow(x, 1, 1, 2), {1, 2, 6, 7});
  require_values(narrow(x, 1, -2, 2), {3, 4, 8, 9});
  CHECK(narrow(x, 0, 2, 0).shape() == Shape{0, 5});
}

TEST_CASE("slice: hand-worked backward writes grad into zeros") {
  Tensor x = grid();
  x.requires_grad_();
  Tensor y = slice(x, 1, 0, 5, 2);  // columns 0, 2, 4
  y.backward(tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64));
  require_values(x.grad(), {1, 0, 2, 0, 3, 4, 0, 5, 0, 6});
  x.zero_grad();
  narrow(x, 0, 1, 1).backward(ones({1, 5}, kF64));
  require_values(x.grad(), {0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
}

TEST_CASE("slice: a view sharing storage") {
  Tensor x = grid();
  Tensor s = slice(x, 1, 1, 5, 2);  // columns 1, 3
  CHECK(s.storage() == x.storage());
  CHECK(s.shape() == Shape{2, 2});
  CHECK(s.strides() == Shape{5, 2});
  CHECK(s.offset() == 1);
  CHECK(narrow(x, 0, 1, 1).offset() == 5);
  fill_(x, 3);
  require_values(s, {3, 3, 3, 3});
  fill_(s, 8);  // and the base sees writes through the view
  require_values(x, {3, 8, 3, 8, 3, 3, 8, 3, 8, 3});
}

TEST_CASE("gradcheck slice") {
  require_gradcheck("slice", [](const std::vector<Tensor>& in) { return slice(in[0], 1, 1, 5, 2); },
                    {rand64({3, 5}, 1)});
  require_gradcheck("slice", [](const std::vector<Tensor>& in) { return slice(in[0], 0, -2, kEnd); },
                    {rand64({4, 3}, 2)});
  require_gradcheck("slice", [](const std::vector<Tensor>& in) { return narrow(in[0], -1, 1, 2); },
                    {noncontig64({2, 3, 4}, 3)});
  // overlapping slices of one input add up; a slice broadcast against another input
  require_gradcheck("slice",
                    [](const std::vector<Tensor>& in) { return add(slice(in[0], 0, 0, 3), slice(in[0], 0, 1, 4)); },
                    {rand64({4, 2}, 4)});
  require_gradcheck("slice", [](const std::vector<Tensor>& in) { return add(narrow(in[0], 1, 2, 1), in[1]); },
                    {rand64({2, 4}, 5), rand64({3, 1, 1}, 6)});
}

TEST_CASE("slice: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return slice(in[0], 1, -4, kEnd, 2); },
                          {rand64({2, 5}, 7)});
}

TEST_CASE("slice: errors name the op and the shape") {
  Tensor x = grid();
  CHECK_THROWS_WITH_AS(slice(x, 1, 0, 5, 0), doctest::Contains("slice: step must be >= 1, got 0 (slicing x (2,5)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(slice(x, 1, 0, 5, -1), doctest::Contains("slice: step must be >= 1, got -1"), tg::Error);
  CHECK_THROWS_WITH_AS(slice(x, 2, 0, 1), doctest::Contains("slice: dim 2 is out of range for a tensor of shape (2,5)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(slice(scalar(1), 0, 0, 1), doctest::Contains("slice: x is a 0-d tensor"), tg::Error);
  CHECK_THROWS_WITH_AS(narrow(x, 1, 4, 2),
                       doctest::Contains("narrow: start 4 and length 2 do not fit in dim 1 of size 5 of x (2,5)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(narrow(x, 1, -6, 1), doctest::Contains("narrow: start -6"), tg::Error);
  CHECK_THROWS_WITH_AS(narrow(x, 0, 0, -1), doctest::Contains("narrow: start 0 and length -1"), tg::Error);
  CHECK_THROWS_WITH_AS(narrow(Tensor(), 0, 0, 1), doctest::Contains("narrow: argument 'x' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("slice: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return slice(in[0], 1, 1, 4, 2); };
  require_cuda_matches_cpu_with_grads("slice (2,5)", fn, {rand64({2, 5}, 1)});
  require_cuda_matches_cpu_with_grads("slice non-contiguous (3,5)", fn, {noncontig64({3, 5}, 2)});
  require_gradcheck("slice", fn, on_gpu({noncontig64({3, 5}, 2)}));
}
