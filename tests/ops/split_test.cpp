#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/split/split.h"

using namespace tg;
using namespace tg::test;

namespace {
Tensor column() { return tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {5, 2}, kF64); }  // rows [0,1] .. [8,9]
}  // namespace

TEST_CASE("split / chunk: hand-worked forward") {
  Tensor x = column();
  std::vector<Tensor> p = split(x, 2, 0);
  REQUIRE(p.size() == 3);
  require_values(p[0], {0, 1, 2, 3});
  require_values(p[1], {4, 5, 6, 7});
  CHECK(p[2].shape() == Shape{1, 2});
  require_values(p[2], {8, 9});
  std::vector<Tensor> q = split(x, std::vector<int64_t>{1, 0, 4}, 0);
  REQUIRE(q.size() == 3);
  require_values(q[0], {0, 1});
  CHECK(q[1].shape() == Shape{0, 2});
  require_values(q[2], {2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<Tensor> c = chunk(x, 2, 0);  // ceil(5/2) = 3 rows, then 2
  REQUIRE(c.size() == 2);
  CHECK(c[0].shape() == Shape{3, 2});
  CHECK(c[1].shape() == Shape{2, 2});
  CHECK(chunk(x, 4, 0).size() == 3);       // ceil(5/4) = 2 rows: 2, 2, 1 (fewer than 4, as in PyTorch)
  std::vector<Tensor> cols = chunk(x, 3, -1);  // only 2 columns: 2 pieces
  REQUIRE(cols.size() == 2);
  require_values(cols[1], {1, 3, 5, 7, 9});
  CHECK(split(zeros({0, 2}), 3, 0).size() == 1);
}

TEST_CASE("split: views sharing storage, one tape entry") {
  Tensor x = column();
  x.requires_grad_();
  std::vector<Tensor> p = split(x, 2, 0);
  for (int i = 0; i < 3; ++i) {
    CHECK(p[i].storage() == x.storage());
    CHECK(p[i].strides() == Shape{2, 1});
    CHECK(p[i].offset() == 4 * i);
    CHECK(p[i].producer() == p[0].producer());
    CHECK(p[i].impl()->output_index == i);
  }
  CHECK(p[0].producer()->op == "split");
  CHECK(p[0].producer()->outputs.size() == 3);
  CHECK(split(x, 1, 1)[1].offset() == 1);
  fill_(x, 1.5);
  require_values(p[2], {1.5, 1.5});
}

TEST_CASE("split: backward through only some pieces") {
  Tensor x = column();
  x.requires_grad_();
  std::vector<Tensor> p = split(x, 2, 0);
  p[1].backward(tensor({1, 2, 3, 4}, {2, 2}, kF64));  // pieces 0 and 2 got no gradient: zeros
  require_values(x.grad(), {0, 0, 0, 0, 1, 2, 3, 4, 0, 0});
  x.zero_grad();
  p = split(x, 2, 0);  // p0 (2,2) + p2 (1,2) broadcast: row 4 is used twice
  sum(add(p[0], p[2])).backward();
  require_values(x.grad(), {1, 1, 1, 1, 0, 0, 0, 0, 2, 2});
}

TEST_CASE("gradcheck split") {
  require_gradcheck("split", [](const std::vector<Tensor>& in) { auto p = split(in[0], 2, 0); return add(p[0], p[2]); },
                    {rand64({5, 2}, 1)});
  require_gradcheck("split",
                    [](const std::vector<Tensor>& in) {
                      auto p = split(in[0], std::vector<int64_t>{1, 3}, -1);
                      return add(p[1], p[0]);
                    },
                    {noncontig64({2, 4}, 2)});
  require_gradcheck("split", [](const std::vector<Tensor>& in) { return chunk(in[0], 3, 1)[1]; },
                    {rand64({2, 6, 2}, 3)});
  require_gradcheck("split",
                    [](const std::vector<Tensor>& in) { auto p = chunk(in[0], 2, 0); return add(p[1], in[1]); },
                    {rand64({4, 3}, 4), rand64({3}, 5)});
}

TEST_CASE("split: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { auto p = split(in[0], 3, 1); return add(p[0], p[1]); },
                          {rand64({2, 6}, 6)});
}

TEST_CASE("split / chunk: errors name the op and the shape") {
  Tensor x = zeros({5, 2});
  CHECK_THROWS_WITH_AS(split(x, 0, 0), doctest::Contains("split: split_size must be >= 1, got 0 (x (5,2), dim 0)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(split(x, std::vector<int64_t>{2, 2}, 0),
                       doctest::Contains("split: sizes [2,2] must be >= 0 and add up to dim 0 of size 5 of x (5,2)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(split(x, std::vector<int64_t>{6, -1}, 0), doctest::Contains("split: sizes [6,-1]"), tg::Error);
  CHECK_THROWS_WITH_AS(split(x, 1, 2), doctest::Contains("split: dim 2 is out of range for a tensor of shape (5,2)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(split(scalar(1), 1, 0), doctest::Contains("split: x is a 0-d tensor"), tg::Error);
  CHECK_THROWS_WITH_AS(chunk(x, 0, 1), doctest::Contains("chunk: chunks must be >= 1, got 0 (x (5,2), dim 1)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(chunk(Tensor(), 2, 0), doctest::Contains("chunk: argument 'x' is an undefined tensor"),
                       tg::Error);
}

TEST_CASE("split: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) {
    const std::vector<Tensor> parts = split(in[0], {1, 3}, 1);  // both outputs, swapped
    return cat({parts[1], parts[0]}, 1);
  };
  require_cuda_matches_cpu_with_grads("split (2,4)", fn, {rand64({2, 4}, 1)});
  require_cuda_matches_cpu_with_grads("split non-contiguous (3,4)", fn, {noncontig64({3, 4}, 2)});
  require_gradcheck("split", fn, on_gpu({noncontig64({3, 4}, 2)}));
}
