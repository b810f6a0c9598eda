#include "test_util.h"
#include "cuda_parity_test_util.h"

#include "ops/permute/permute.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("permute: hand-worked forward and backward") {
  // x (2,1,3) = [[[1,2,3]],[[4,5,6]]]; permute {2,0,1} -> (3,2,1): out[k,i,0] = x[i,0,k]
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 1, 3}, kF64);
  x.requires_grad_();
  Tensor p = permute(x, {2, 0, 1});
  CHECK(p.shape() == Shape{3, 2, 1});
  require_values(p, {1, 4, 2, 5, 3, 6});
  // grad (3,2,1) = 0..5 goes back by the inverse permutation {1,2,0}: dx[i,0,k] = g[k,i,0]
  p.backward(tensor({0, 1, 2, 3, 4, 5}, {3, 2, 1}, kF64));
  require_values(x.grad(), {0, 2, 4, 1, 3, 5});
}

TEST_CASE("permute: a view sharing storage") {
  Tensor x = zeros({2, 3, 4});  // strides (12,4,1)
  Tensor p = permute(x, {1, -1, 0});
  CHECK(p.storage() == x.storage());
  CHECK(p.shape() == Shape{3, 4, 2});
  CHECK(p.strides() == Shape{4, 1, 12});
  CHECK(p.offset() == 0);
  fill_(x, 2.5);
  require_values(p, std::vector<double>(24, 2.5));
}

TEST_CASE("permute -> contiguous -> reshape: gradient by hand and by gradcheck") {
  // x (2,3) [[a,b,c],[d,e,f]] -> permute {1,0} (3,2) -> contiguous -> reshape (6,) = [a,d,b,e,c,f]
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  x.requires_grad_();
  Tensor y = reshape(contiguous(permute(x, {1, 0})), {-1});
  require_values(y, {1, 4, 2, 5, 3, 6});
  y.backward(tensor({0, 1, 2, 3, 4, 5}, {6}, kF64));  // dy[j] = j: dx = [[0,2,4],[1,3,5]]
  require_values(x.grad(), {0, 2, 4, 1, 3, 5});
  require_gradcheck("permute",
                    [](const std::vector<Tensor>& in) {
                      return reshape(contiguous(permute(in[0], {2, 0, 1})), {4, -1});
                    },
                    {rand64({2, 3, 4}, 1)});
}

TEST_CASE("gradcheck permute") {
  require_gradcheck("permute", [](const std::vector<Tensor>& in) { return permute(in[0], {1, 0}); },
                    {rand64({2, 3}, 1)});
  require_gradcheck("permute", [](const std::vector<Tensor>& in) { return permute(in[0], {2, 0, 1}); },
                    {rand64({2, 3, 4}, 2)});
  require_gradcheck("permute", [](const std::vector<Tensor>& in) { return permute(in[0], {1, 2, 0}); },
                    {noncontig64({2, 3, 4}, 3)});
  require_gradcheck("permute", [](const std::vector<Tensor>& in) { return add(permute(in[0], {1, 0}), in[1]); },
                    {rand64({3, 2}, 4), rand64({1, 3}, 5)});
}

TEST_CASE("permute: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return permute(in[0], {2, 1, 0}); },
                          {rand64({2, 3, 4}, 6)});
}

TEST_CASE("permute: errors name the op and the shape") {
  Tensor x = zeros({2, 3, 4});
  CHECK_THROWS_WITH_AS(permute(x, {0, 0, 1}),
                       doctest::Contains("permute: dims [0,0,1] is not a permutation of 0..2 for x (2,3,4)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(permute(x, {0, 1}), doctest::Contains("permute: dims [0,1] is not a permutation"), tg::Error);
  CHECK_THROWS_WITH_AS(permute(x, {0, 1, -1, 2}), doctest::Contains("not a permutation"), tg::Error);
  CHECK_THROWS_WITH_AS(permute(x, {0, 1, 3}), doctest::Contains("permute: dim 3 is out of range"), tg::Error);
  CHECK_THROWS_WITH_AS(permute(x, {2, -1, 0}), doctest::Contains("not a permutation"), tg::Error);  // -1 is 2
}

TEST_CASE("permute: CUDA matches CPU (forward and backward), f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return permute(in[0], {2, 0, 1}); };
  Tensor strided = unsqueeze(noncontig64({4, 3}, 2).detach(), 0).requires_grad_();  // (1,4,3), not contiguous
  require_cuda_matches_cpu_with_grads("permute (2,3,4)", fn, {rand64({2, 3, 4}, 1)});
  require_cuda_matches_cpu_with_grads("permute non-contiguous (1,4,3)", fn, {strided});
  require_gradcheck("permute", fn, on_gpu({strided}));
}
