#include <cmath>

#include <omp.h>

#include "cuda_parity_test_util.h"
#include "ops/log_softmax/log_softmax.h"
#include "ops/masked_fill/masked_fill.h"
#include "ops/softmax/softmax.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("log_softmax: hand-worked forward and backward") {
  // log(e^1 + e^2 + e^3) = 3.407605964444
  Tensor x = tensor({1, 2, 3}, {3}, kF64);
  x.requires_grad_();
  Tensor y = log_softmax(x);
  require_values(y, {-2.407605964444, -1.407605964444, -0.407605964444}, 1e-11);
  // g = (1,0,0) (the gradient of picking class 0): dx = g - softmax * 1 = (1 - p0, -p1, -p2)
  y.backward(tensor({1, 0, 0}, {3}, kF64));
  require_values(x.grad(), {0.909969426830, -0.244728471055, -0.665240955775}, 1e-11);
  require_values(log_softmax(tensor({0, 0, 0, 0}, {2, 2}, kF64), 0), {-M_LN2, -M_LN2, -M_LN2, -M_LN2}, 1e-15);
  CHECK(y.producer()->str().find("log_softmax(") != std::string::npos);
}

TEST_CASE("log_softmax: equals log(softmax) on every dim, adding a constant changes nothing") {
  Tensor x = rand64({2, 3, 4}, 31).detach();
  for (int dim : {0, 1, 2, -1}) {
    CAPTURE(dim);
    Tensor y = log_softmax(x, dim);
    std::vector<double> p = softmax(x, dim).to_vector<double>(), lp(p.size());
    for (size_t i = 0; i < p.size(); ++i) lp[i] = std::log(p[i]);
    require_values(y, lp, 1e-12);
    require_close(log_softmax(x + 7.0, dim), y, 1e-12, 0);
  }
  Tensor xt = noncontig64({3, 4}, 32);
  for (int dim : {0, 1}) require_close(log_softmax(xt, dim), log_softmax(contiguous_copy(xt), dim), 0, 0);
}

TEST_CASE("log_softmax: rows of magnitude 1000 stay exact, where log(softmax) gives -inf") {
  for (DType dt : {kF64, kF32}) {
    CAPTURE(dtype_name(dt));
    const double tol = dt == kF64 ? 1e-12 : 1e-5;
    require_values(log_softmax(tensor({1000, 1001, 1002}, {3}, dt)),
                   {-2.407605964444, -1.407605964444, -0.407605964444}, tol);
    require_values(log_softmax(tensor({-1000, -1000}, {2}, dt)), {-M_LN2, -M_LN2}, tol);
    // softmax(1000, 0) = (1, e^-1000) underflows to (1, 0), whose log is -inf; log_softmax is exact.
    require_values(log_softmax(tensor({1000, 0}, {2}, dt)), {0, -1000}, tol);
  }
}

TEST_CASE("log_softmax: fully masked rows give -inf and zero gradient, never NaN") {
  // Straight into log_softmax: row 0 = (0, -inf), row 1 all -inf.
  Tensor x = tensor({0, -INFINITY, -INFINITY, -INFINITY}, {2, 2}, kF64);
  x.requires_grad_();
  Tensor y = log_softmax(x);
  std::vector<double> yv = y.to_vector<double>();
  CHECK(yv[0] == 0);
  for (int j : {1, 2, 3}) CHECK((std::isinf(yv[j]) && yv[j] < 0));
  y.backward(tensor({1, 2, 3, 4}, {2, 2}, kF64));
  // row 0: dx = g - exp(y) * sum(g) = (1 - 3, 2 - 0), the exact derivative; row 1: zero
  require_values(x.grad(), {-2, 2, 0, 0}, 0);

  // Through masked_fill: masked positions get zero gradient, partial and full rows alike.
  Tensor s = rand64({3, 3}, 33);
  Tensor mask = tensor_bool({false, false, false, true, true, true, false, true, false}, {3, 3});
  Tensor ls = log_softmax(masked_fill(s, mask, -INFINITY));
  for (double v : ls.to_vector<double>()) CHECK_FALSE(std::isnan(v));
  ls.backward(ones({3, 3}, kF64));
  CHECK(all_finite(s.grad()));
  std::vector<double> ds = s.grad().to_vector<double>();
  for (int j : {3, 4, 5, 7}) CHECK(ds[j] == 0);
  for (int j : {0, 1, 2, 6, 8}) CHECK(ds[j] != 0);
}

TEST_CASE("log_softmax: NaN or +inf in a row still gives a NaN row") {
  for (double v : log_softmax(tensor({-INFINITY, NAN}, {2}, kF64)).to_vector<double>()) CHECK(std::isnan(v));
  CHECK(std::isnan(log_softmax(tensor({INFINITY, 0}, {2}, kF64)).to_vector<double>()[0]));
}

TEST_CASE("gradcheck log_softmax") {
  auto along = [](int64_t dim) { return [dim](const std::vector<Tensor>& in) { return log_softmax(in[0], dim); }; };
  require_gradcheck("log_softmax", along(-1), {rand64({5}, 1)});
  require_gradcheck("log_softmax", along(0), {rand64({3, 4}, 2)});
  require_gradcheck("log_softmax", along(1), {rand64({2, 3, 4}, 3, -3, 3)});
  require_gradcheck("log_softmax", along(0), {rand64({2, 3, 4}, 4)});
  require_gradcheck("log_softmax", along(-1), {noncontig64({3, 4}, 5)});
  require_gradcheck("log_softmax", along(1), {noncontig64({2, 4, 3}, 6)});
  // Masked log-probabilities zeroed afterwards (as before a padded loss); row 1 fully masked.
  Tensor mask = tensor_bool({false, true, false, true, true, true, false, false, false}, {3, 3});
  require_gradcheck("log_softmax",
                    [mask](const std::vector<Tensor>& in) {
                      return masked_fill(log_softmax(masked_fill(in[0], mask, -INFINITY)), mask, 0);
                    },
                    {rand64({2, 3, 3}, 7)});
}

TEST_CASE("log_softmax: float32 forward and backward match float64") {
  Tensor x64 = rand64({2, 3, 5}, 41, -4, 4);
  Tensor g64 = rand64({2, 3, 5}, 42).detach();
  Tensor x32 = to_dtype_copy(x64, kF32);
  x32.requires_grad_();
  for (int dim : {0, 2}) {
    Tensor y64 = log_softmax(x64, dim), y32 = log_softmax(x32, dim);
    CHECK(y32.dtype() == kF32);
    require_close(y32, y64, 1e-5, 1e-5);
    y64.backward(g64);
    y32.backward(to_dtype_copy(g64, kF32));
    CHECK(x32.grad().dtype() == kF32);
    require_close(x32.grad(), x64.grad(), 1e-5, 1e-5);
    x64.zero_grad();
    x32.zero_grad();
  }
}

TEST_CASE("log_softmax: errors name the op and the shapes") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK_THROWS_WITH_AS(log_softmax(x, 2),
                       "log_softmax: dim 2 is out of range for a tensor of shape (2,3) (expected -2..1)", tg::Error);
  CHECK_THROWS_WITH_AS(log_softmax(tensor_bool({true})),
                       doctest::Contains("log_softmax: argument 'x' must be float32 or float64, got bool"), tg::Error);
}

TEST_CASE("log_softmax: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto along = [](int64_t dim) { return [dim](const std::vector<Tensor>& in) { return log_softmax(in[0], dim); }; };
  require_cuda_matches_cpu_with_grads("log_softmax (5) dim -1", along(-1), {rand64({5}, 1)});
  require_cuda_matches_cpu_with_grads("log_softmax (3,4) dim 0", along(0), {rand64({3, 4}, 2)});
  require_cuda_matches_cpu_with_grads("log_softmax (2,3,4) dim 1", along(1), {rand64({2, 3, 4}, 3, -3, 3)});
  require_cuda_matches_cpu_with_grads("log_softmax non-contiguous (3,4) dim 1", along(1), {noncontig64({3, 4}, 4)});
  require_cuda_matches_cpu_with_grads("log_softmax (2,3,700) dim -1", along(-1), {rand64({2, 3, 700}, 5, -5, 5)});
  require_cuda_matches_cpu_with_grads("log_softmax (2,300,3) dim 1", along(1), {rand64({2, 300, 3}, 6, -5, 5)});
  require_cuda_matches_cpu_with_grads("log_softmax (rows beyond one grid,3) dim 1", along(1),
                                      {rand64({rows_beyond_one_grid(), 3}, 7)});
  // Masked elements give -inf, a fully masked row (row 1) -inf everywhere and zero gradient.
  auto masked = [](const std::vector<Tensor>& in) { return log_softmax(masked_fill(in[0], in[1], -INFINITY)); };
  Tensor mask = tensor_bool({false, true, false, true, true, true, false, false, false}, {3, 3});
  require_cuda_matches_cpu_with_grads("log_softmax masked (2,3,3), row 1 fully masked", masked,
                                      {rand64({2, 3, 3}, 8), mask});
}

TEST_CASE("log_softmax: on the GPU, fully masked rows give -inf and zero gradient, NaN gives NaN rows") {
  if (!gpu_available_or_skip()) return;
  const Device gpu = Device::cuda();
  Tensor inf = full({2, 3}, -INFINITY, kF64, gpu).requires_grad_();
  Tensor z = log_softmax(inf);
  for (double v : to_device_copy(z, kCPU).to_vector<double>()) CHECK((std::isinf(v) && v < 0));
  z.backward(ones({2, 3}, kF64, gpu));
  require_values(to_device_copy(inf.grad(), kCPU), {0, 0, 0, 0, 0, 0}, 0);
  for (double v : to_device_copy(log_softmax(tensor({1, NAN, 2}, {3}, kF64, gpu)), kCPU).to_vector<double>())
    CHECK(std::isnan(v));
  require_values(to_device_copy(log_softmax(tensor({1000, 1001, 1002}, {3}, kF32, gpu)), kCPU),
                 {-2.407605964444, -1.407605964444, -0.407605964444}, 1e-6);
}

TEST_CASE("log_softmax: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  require_gradcheck("log_softmax", [](const std::vector<Tensor>& in) { return log_softmax(in[0], 1); },
                    on_gpu({rand64({2, 3, 4}, 9, -3, 3)}));
  require_gradcheck("log_softmax", [](const std::vector<Tensor>& in) { return log_softmax(in[0], 0); },
                    on_gpu({noncontig64({3, 4}, 10)}));
}

TEST_CASE("log_softmax: the OpenMP path (a large tensor) equals one thread") {
  Tensor x = rand64({33, 1000}, 53, -5, 5);  // 33000 elements: above kParallelGrain
  Tensor g = rand64({33, 1000}, 54).detach();
  Tensor y = log_softmax(x, 1);
  y.backward(g);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  Tensor x1 = x.detach();
  x1.requires_grad_();
  Tensor y1 = log_softmax(x1, 1);
  y1.backward(g);
  omp_set_num_threads(threads);
  require_close(y, y1, 0, 0);
  require_close(x.grad(), x1.grad(), 0, 0);
}

TEST_CASE("log_softmax: second order, forward mode, and the reference rule against the kernel") {
  for (int64_t dim : {0, -1}) {
    CAPTURE(dim);
    const GradcheckFn fn = [&](const std::vector<Tensor>& in) { return log_softmax(in[0], dim); };
    require_second_order(fn, {rand64({3, 4}, 1, -2, 2)});
    require_forward_mode(fn, {noncontig64({3, 4}, 2, -2, 2)});
    require_reference_matches_fast(fn, {noncontig64({3, 4}, 2, -2, 2)});
  }
}

TEST_CASE("log_softmax: fully masked rows give a zero gradient by the reference rule too") {
  // row 0 fully masked, row 1 partly: the rule must give 0 on row 0 and grad at row 1's -inf
  const Tensor x = tensor({-INFINITY, -INFINITY, -INFINITY, 0.5, -INFINITY, -1}, {2, 3}, kF64).requires_grad_();
  const Tensor g = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  const Tensor dx = grad({log_softmax(x, 1)}, {x}, {g}, {.create_graph = true})[0];
  const double p0 = 1 / (1 + std::exp(-1.5));  // softmax of (0.5, -inf, -1)
  require_values(reshape(dx.detach(), {6}), {0, 0, 0, 4 - p0 * 15, 5, 6 - (1 - p0) * 15}, 1e-12);
}
