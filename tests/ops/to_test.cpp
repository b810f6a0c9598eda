#include "test_util.h"

#include "ops/to/to.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("to(dtype): hand-worked forward and backward") {
  Tensor x = tensor({1.5, -2.25, 3});  // float32
  x.requires_grad_();
  CHECK(to(x, kF32).impl() == x.impl());  // nothing to change: x itself
  CHECK(to(x, kCPU).impl() == x.impl());
  Tensor y = to(x, kF64);
  CHECK(y.dtype() == kF64);
  CHECK(y.storage() != x.storage());
  require_values(y, {1.5, -2.25, 3});
  y.backward(tensor({0.5, 1, -4}, {3}, kF64));  // dx = grad converted back to float32
  CHECK(x.grad().dtype() == kF32);
  require_values(x.grad(), {0.5, 1, -4});
  Tensor i = to(x, kI64);  // truncates toward zero; an integer result carries no gradient
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{1, -2, 3});
  CHECK_FALSE(i.requires_grad());
  Tensor back = to(tensor_i64({4, -1}), kF32);
  require_values(back, {4, -1});
}

TEST_CASE("gradcheck to") {
  // float64 -> float32 rounds the values (relative 6e-8): a larger eps keeps the differences clean
  GradcheckOptions coarse;
  coarse.eps = 1e-2;
  require_gradcheck("to", [](const std::vector<Tensor>& in) { return to(in[0], kF32); }, {rand64({2, 3}, 1)}, coarse);
  require_gradcheck("to", [](const std::vector<Tensor>& in) { return to(to(in[0], kF32), kF64); },
                    {noncontig64({3, 2}, 2)}, coarse);
  require_gradcheck("to", [](const std::vector<Tensor>& in) { return add(to(in[0], kF32), to(in[1], kF32)); },
                    {rand64({2, 1}, 3), rand64({3}, 4)}, coarse);
}

TEST_CASE("to: float32 matches float64") {
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return to(in[0], kF64); }, {rand64({2, 3}, 5)});
}

TEST_CASE("to: errors name the op") {
  Tensor x = zeros({2});
  CHECK_THROWS_WITH_AS(to(x, Device::cuda(cuda_device_count())),
                       doctest::Contains("to: cannot move x (2,) float32 to cuda:"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(to(x, Device::cuda(-1)), doctest::Contains("to: cannot move x"), tg::Error);
  CHECK_THROWS_WITH_AS(to(Tensor(), kF64), doctest::Contains("to: argument 'x' is an undefined tensor"), tg::Error);
  CHECK_THROWS_WITH_AS(to(Tensor(), kCPU), doctest::Contains("to: argument 'x' is an undefined tensor"), tg::Error);
}

TEST_CASE("to(device): CPU <-> GPU, gradient comes back to the input's device (GPU)") {
  if (!tg::test::gpu_available_or_skip()) return;
  Tensor x = tensor({1, 2, 3}, {3}, kF64);
  x.requires_grad_();
  Tensor g = to(x, Device::cuda());
  CHECK(g.is_cuda());
  CHECK(to(g, Device::cuda()).impl() == g.impl());
  require_values(g, {1, 2, 3});
  Tensor h = to(g, kCPU);
  CHECK(h.is_cpu());
  h.backward(tensor({4, 5, 6}, {3}, kF64));
  CHECK(x.grad().is_cpu());
  require_values(x.grad(), {4, 5, 6});
  require_gradcheck("to", [](const std::vector<Tensor>& in) { return to(in[0], Device::cuda()); },
                    {noncontig64({2, 3}, 6)});
  require_gradcheck("to", [](const std::vector<Tensor>& in) { return to(to(in[0], Device::cuda()), kCPU); },
                    {rand64({2, 3}, 7)});
}
