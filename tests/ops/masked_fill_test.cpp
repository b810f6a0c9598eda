#include <cmath>

#include "cuda_parity_test_util.h"
#include "ops/masked_fill/masked_fill.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("masked_fill: hand-worked forward, true = filled, mask broadcast to x") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  require_values(masked_fill(x, tensor_bool({true, false, false, false, false, true}, {2, 3}), 9),
                 {9, 2, 3, 4, 5, 9});
  require_values(masked_fill(x, tensor_bool({false, true, false}, {3}), -1), {1, -1, 3, 4, -1, 6});  // column 1
  require_values(masked_fill(x, tensor_bool({false, true}, {2, 1}), 0), {1, 2, 3, 0, 0, 0});        // row 1
  Tensor all = make_view(tensor_bool({true}), {}, {}, 0);                                            // 0-d mask
  require_values(masked_fill(x, all, 7), {7, 7, 7, 7, 7, 7});
  CHECK(masked_fill(x, all, 7).shape() == Shape{2, 3});
}

TEST_CASE("masked_fill: -inf value, non-contiguous x and mask") {
  Tensor x = tensor({1, 2, 3, 4}, {2, 2});
  std::vector<float> v = masked_fill(x, tensor_bool({false, true}, {2}), -INFINITY).to_vector<float>();
  CHECK(v[0] == 1);
  CHECK(v[2] == 3);
  CHECK((std::isinf(v[1]) && v[1] < 0));
  CHECK((std::isinf(v[3]) && v[3] < 0));
  // x^T = [[1,3],[2,4]], mask^T of [[F,T],[F,F]] = [[F,F],[T,F]]
  Tensor xt = make_view(x, {2, 2}, {1, 2}, 0);
  Tensor mt = make_view(tensor_bool({false, true, false, false}, {2, 2}), {2, 2}, {1, 2}, 0);
  require_values(masked_fill(xt, mt, -9), {1, 3, -9, 4});
}

TEST_CASE("masked_fill: backward passes grad where the mask is false, 0 where true") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  x.requires_grad_();
  Tensor y = masked_fill(x, tensor_bool({false, true, false}, {3}), -INFINITY);
  std::string entry = y.producer()->str();
  CHECK(entry.find("masked_fill(") != std::string::npos);
  CHECK(entry.find("(3,) const") != std::string::npos);  // the mask is a constant input
  CHECK(entry.find("value=-inf") != std::string::npos);
  y.backward(tensor({10, 20, 30, 40, 50, 60}, {2, 3}, kF64));
  require_values(x.grad(), {10, 0, 30, 40, 0, 60});
}

TEST_CASE("gradcheck masked_fill") {
  auto with = [](const Tensor& mask, double value) {
    return [mask, value](const std::vector<Tensor>& in) { return masked_fill(in[0], mask, value); };
  };
  require_gradcheck("masked_fill", with(tensor_bool({true, false, false, true, true, false}, {2, 3}), 0.5),
                    {rand64({2, 3}, 1)});
  require_gradcheck("masked_fill", with(tensor_bool({false, true, false}, {3}), -2), {rand64({2, 3}, 2)});
  require_gradcheck("masked_fill", with(tensor_bool({true, false, true}, {3, 1}), 3), {rand64({2, 3, 4}, 3)});
  require_gradcheck("masked_fill", with(tensor_bool({false, true, true, false}, {4}), 0), {noncontig64({3, 4}, 4)});
}

TEST_CASE("masked_fill: float32 forward and backward match float64") {
  Tensor mask = tensor_bool({true, false, false, true, false, true}, {3, 2});
  Tensor x64 = rand64({2, 3, 2}, 5);
  Tensor x32 = to_dtype_copy(x64, kF32);
  x32.requires_grad_();
  Tensor g64 = rand64({2, 3, 2}, 6).detach();
  Tensor y32 = masked_fill(x32, mask, -1.25);
  require_close(y32, masked_fill(x64, mask, -1.25), 1e-6);
  y32.backward(to_dtype_copy(g64, kF32));
  CHECK(x32.grad().dtype() == kF32);
  require_close(x32.grad(), masked_fill(g64, mask, 0), 1e-6);
}

TEST_CASE("masked_fill: errors name the op and the shapes") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK_THROWS_WITH_AS(masked_fill(x, tensor({0, 1, 0, 1, 0, 1}, {2, 3}), 0),
                       "masked_fill: mask must be bool, got float32 (2,3); a float 0/1 mask is a classic bug: "
                       "convert it explicitly",
                       tg::Error);
  CHECK_THROWS_WITH_AS(masked_fill(x, tensor_i64({0, 1, 0}, {3}), 0),
                       doctest::Contains("masked_fill: mask must be bool, got int64 (3,)"), tg::Error);
  CHECK_THROWS_WITH_AS(masked_fill(x, tensor_bool({true, false}, {2}), 0),
                       "masked_fill: mask (2,) does not broadcast to x (2,3) (the output keeps x's shape)", tg::Error);
  // The mask may not make the output bigger than x.
  Tensor wide = tensor_bool({true, false, true, true, false, true}, {2, 3});
  CHECK_THROWS_WITH_AS(masked_fill(tensor({1, 2, 3}, {3}), wide, 0),
                       doctest::Contains("mask (2,3) does not broadcast to x (3,)"), tg::Error);
  CHECK_THROWS_WITH_AS(masked_fill(tensor_i64({1, 2}), tensor_bool({true, false}), 0),
                       doctest::Contains("masked_fill: argument 'x' must be float32 or float64"), tg::Error);
  CHECK_THROWS_WITH_AS(masked_fill(x, Tensor(), 0), doctest::Contains("masked_fill: argument 'mask'"), tg::Error);
}

TEST_CASE("masked_fill: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  // The mask is an input, so that it moves to the GPU with x.
  auto with = [](double value) {
    return [value](const std::vector<Tensor>& in) { return masked_fill(in[0], in[1], value); };
  };
  Tensor mask23 = tensor_bool({true, false, false, true, true, false}, {2, 3});
  require_cuda_matches_cpu_with_grads("masked_fill x (2,3) mask (2,3)", with(0.5), {rand64({2, 3}, 1), mask23});
  require_cuda_matches_cpu_with_grads("masked_fill x (2,3) mask (3,)", with(-2), {rand64({2, 3}, 2),
                                                                                  tensor_bool({false, true, false})});
  require_cuda_matches_cpu_with_grads("masked_fill x (2,3,4) mask (3,1)", with(3),
                                      {rand64({2, 3, 4}, 3), tensor_bool({true, false, true}, {3, 1})});
  require_cuda_matches_cpu_with_grads("masked_fill x (2,3) 0-d mask", with(7),
                                      {rand64({2, 3}, 4), make_view(tensor_bool({true}), {}, {}, 0)});
  require_cuda_matches_cpu_with_grads("masked_fill x (2,2) -inf", with(-INFINITY),
                                      {rand64({2, 2}, 5), tensor_bool({false, true}, {2})});
  // Non-contiguous x and mask (transposed views).
  Tensor mask_t = make_view(tensor_bool({false, true, true, false, false, true, true, true, false, false, true, false},
                                        {4, 3}),
                            {3, 4}, {1, 3}, 0);
  require_cuda_matches_cpu_with_grads("masked_fill non-contiguous x (3,4) and mask (3,4)", with(0),
                                      {noncontig64({3, 4}, 6), mask_t});
}

TEST_CASE("masked_fill: f64 gradcheck on the GPU, and device errors") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) { return masked_fill(in[0], in[1], -1.5); };
  require_gradcheck("masked_fill", fn, on_gpu({rand64({2, 3, 4}, 7), tensor_bool({true, false, true}, {3, 1})}));
  require_gradcheck("masked_fill", fn, on_gpu({noncontig64({3, 4}, 8), tensor_bool({false, true, true, false})}));
  Tensor x = to_device_copy(tensor({1, 2}), Device::cuda(0));
  CHECK_THROWS_WITH_AS(masked_fill(x, tensor_bool({true, false}), 0),
                       "masked_fill: tensors are on different devices: (2,) on cuda:0 and (2,) on cpu", tg::Error);
}
