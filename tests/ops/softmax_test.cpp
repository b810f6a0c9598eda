#include <algorithm>
#include <cmath>

#include <omp.h>

#include "cuda_parity_test_util.h"
#include "ops/masked_fill/masked_fill.h"
#include "ops/softmax/softmax.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// Oracle: softmax of a contiguous (d0,d1,d2) tensor along `dim`, straight from the definition
// (no max subtraction; fine for values in [-1, 1]), by multi-index rather than rows.
std::vector<double> naive_softmax_3d(const std::vector<double>& x, const Shape& s, int dim) {
  std::vector<double> out(x.size());
  for (int64_t a = 0; a < s[0]; ++a)
    for (int64_t b = 0; b < s[1]; ++b)
      for (int64_t c = 0; c < s[2]; ++c) {
        double sum = 0;
        for (int64_t k = 0; k < s[dim]; ++k) {
          int64_t idx[3] = {a, b, c};
          idx[dim] = k;
          sum += std::exp(x[(idx[0] * s[1] + idx[1]) * s[2] + idx[2]]);
        }
        const int64_t i = (a * s[1] + b) * s[2] + c;
        out[i] = std::exp(x[i]) / sum;
      }
  return out;
}

}  // namespace

TEST_CASE("softmax: hand-worked forward and backward") {
  // e^1, e^2, e^3 = 2.718281828, 7.389056099, 20.085536923; sum 30.192874850
  Tensor x = tensor({1, 2, 3}, {3}, kF64);
  x.requires_grad_();
  Tensor y = softmax(x);
  require_values(y, {0.090030573170, 0.244728471055, 0.665240955775}, 1e-11);
  std::string entry = y.producer()->str();  // before backward, which frees the saved tensors
  CHECK(entry.find("softmax(") != std::string::npos);
  CHECK(entry.find("dim=0") != std::string::npos);
  CHECK(entry.find("saved: out") != std::string::npos);
  // g = (1,0,0): dx_i = y_i (g_i - y_0) = (y0 (1 - y0), -y1 y0, -y2 y0)
  y.backward(tensor({1, 0, 0}, {3}, kF64));
  require_values(x.grad(), {0.081925069065, -0.022033044520, -0.059892024545}, 1e-11);
  // Two rows of a matrix are independent; a 0-d tensor is one row of one element.
  require_values(softmax(tensor({1, 2, 3, 0, 0, 0}, {2, 3}, kF64), 1),
                 {0.090030573170, 0.244728471055, 0.665240955775, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-11);
  CHECK(softmax(scalar(5.0, kF64)).item() == 1);
}

TEST_CASE("softmax: rows sum to 1, adding a constant changes nothing, every dim of a 3-D tensor") {
  Tensor x = rand64({2, 3, 4}, 11).detach();
  std::vector<double> xv = x.to_vector<double>();
  for (int dim : {0, 1, 2}) {
    CAPTURE(dim);
    Tensor y = softmax(x, dim);
    require_values(y, naive_softmax_3d(xv, {2, 3, 4}, dim), 1e-12);
    require_close(sum(y, {dim}), ones(sum(y, {dim}).shape(), kF64), 1e-12, 0);
    require_close(softmax(x + 7.0, dim), y, 1e-12, 0);
  }
  require_close(softmax(x, -1), softmax(x, 2), 0, 0);
  require_close(softmax(x, -3), softmax(x, 0), 0, 0);
}

TEST_CASE("softmax: rows of magnitude 1000 stay exact") {
  for (DType dt : {kF64, kF32}) {
    CAPTURE(dtype_name(dt));
    const double tol = dt == kF64 ? 1e-12 : 1e-7;
    require_values(softmax(tensor({1000, 1001, 1002}, {3}, dt)), {0.090030573170, 0.244728471055, 0.665240955775}, tol);
    require_values(softmax(tensor({-1000, -1001, -1002}, {3}, dt)), {0.665240955775, 0.244728471055, 0.090030573170},
                   tol);
    require_values(softmax(tensor({1000, -1000, -1000, -1000}, {2, 2}, dt)), {1, 0, 0.5, 0.5}, tol);
  }
}

TEST_CASE("softmax: non-contiguous input equals its contiguous copy") {
  Tensor x = noncontig64({3, 4}, 12);
  for (int dim : {0, 1}) require_close(softmax(x, dim), softmax(contiguous_copy(x), dim), 0, 0);
}

TEST_CASE("softmax: fully masked rows give zeros and zero gradient, never NaN") {
  Tensor x = rand64({3, 4}, 13);
  // row 0 unmasked, row 1 fully masked (a padding query), row 2 partially masked
  Tensor mask = tensor_bool({false, false, false, false, true, true, true, true, false, true, false, true}, {3, 4});
  Tensor y = softmax(masked_fill(x, mask, -INFINITY));
  CHECK(all_finite(y));
  std::vector<double> xv = x.to_vector<double>(), yv = y.to_vector<double>();
  for (int j = 4; j < 8; ++j) CHECK(yv[j] == 0);
  CHECK(yv[9] == 0);
  CHECK(yv[11] == 0);
  const double e8 = std::exp(xv[8]), e10 = std::exp(xv[10]);  // row 2 = softmax of its two kept keys
  CHECK(yv[8] == doctest::Approx(e8 / (e8 + e10)).epsilon(1e-12));
  CHECK(yv[10] == doctest::Approx(e10 / (e8 + e10)).epsilon(1e-12));
  require_close(sum(y, {1}), tensor({1, 0, 1}, {3}, kF64), 1e-12, 0);

  y.backward(rand64({3, 4}, 14).detach());
  std::vector<double> dx = x.grad().to_vector<double>();
  CHECK(all_finite(x.grad()));
  for (int j : {4, 5, 6, 7, 9, 11}) CHECK(dx[j] == 0);
  CHECK(dx[0] != 0);
  CHECK(dx[8] != 0);

  // Without masked_fill: an all -inf input straight into softmax.
  Tensor inf = full({2, 3}, -INFINITY, kF64);
  inf.requires_grad_();
  Tensor z = softmax(inf);
  require_values(z, {0, 0, 0, 0, 0, 0}, 0);
  z.backward(ones({2, 3}, kF64));
  require_values(inf.grad(), {0, 0, 0, 0, 0, 0}, 0);
}

TEST_CASE("softmax: NaN or +inf in a row still gives a NaN row") {
  std::vector<double> a = softmax(tensor({NAN, -INFINITY, 1}, {3}, kF64)).to_vector<double>();
  std::vector<double> b = softmax(tensor({-INFINITY, NAN, -INFINITY}, {3}, kF64)).to_vector<double>();
  std::vector<double> c = softmax(tensor({INFINITY, 0}, {2}, kF64)).to_vector<double>();
  for (double v : a) CHECK(std::isnan(v));
  for (double v : b) CHECK(std::isnan(v));
  CHECK(std::isnan(c[0]));
}

TEST_CASE("gradcheck softmax") {
  auto along = [](int64_t dim) { return [dim](const std::vector<Tensor>& in) { return softmax(in[0], dim); }; };
  require_gradcheck("softmax", along(-1), {rand64({5}, 1)});
  require_gradcheck("softmax", along(0), {rand64({3, 4}, 2)});
  require_gradcheck("softmax", along(1), {rand64({2, 3, 4}, 3, -3, 3)});
  require_gradcheck("softmax", along(0), {rand64({2, 3, 4}, 4)});
  require_gradcheck("softmax", along(-1), {noncontig64({3, 4}, 5)});
  require_gradcheck("softmax", along(0), {noncontig64({2, 3, 4}, 6)});
  // Attention-style: scores with masked keys; row 1 fully masked.
  Tensor mask = tensor_bool({false, true, false, true, true, true, false, false, false}, {3, 3});
  auto masked = [mask](const std::vector<Tensor>& in) { return softmax(masked_fill(in[0], mask, -INFINITY)); };
  require_gradcheck("softmax", masked, {rand64({2, 3, 3}, 7)});
}

TEST_CASE("softmax: float32 forward and backward match float64") {
  Tensor x64 = rand64({2, 3, 5}, 21, -4, 4);
  Tensor g64 = rand64({2, 3, 5}, 22).detach();
  Tensor x32 = to_dtype_copy(x64, kF32);
  x32.requires_grad_();
  for (int dim : {1, 2}) {
    Tensor y64 = softmax(x64, dim), y32 = softmax(x32, dim);
    CHECK(y32.dtype() == kF32);
    require_close(y32, y64, 1e-6, 1e-5);
    y64.backward(g64);
    y32.backward(to_dtype_copy(g64, kF32));
    CHECK(x32.grad().dtype() == kF32);
    require_close(x32.grad(), x64.grad(), 1e-6, 1e-5);
    x64.zero_grad();
    x32.zero_grad();
  }
}

TEST_CASE("softmax: errors name the op and the shapes") {
  Tensor x = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK_THROWS_WITH_AS(softmax(x, 2), "softmax: dim 2 is out of range for a tensor of shape (2,3) (expected -2..1)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(softmax(x, -3), doctest::Contains("softmax: dim -3 is out of range"), tg::Error);
  CHECK_THROWS_WITH_AS(softmax(tensor_i64({1, 2})),
                       doctest::Contains("softmax: argument 'x' must be float32 or float64"), tg::Error);
  CHECK_THROWS_WITH_AS(softmax(Tensor()), doctest::Contains("softmax: argument 'x'"), tg::Error);
}

TEST_CASE("softmax: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto along = [](int64_t dim) { return [dim](const std::vector<Tensor>& in) { return softmax(in[0], dim); }; };
  require_cuda_matches_cpu_with_grads("softmax (5) dim -1", along(-1), {rand64({5}, 1)});
  require_cuda_matches_cpu_with_grads("softmax (3,4) dim 0", along(0), {rand64({3, 4}, 2)});
  require_cuda_matches_cpu_with_grads("softmax (2,3,4) dim 1", along(1), {rand64({2, 3, 4}, 3, -3, 3)});
  require_cuda_matches_cpu_with_grads("softmax non-contiguous (3,4) dim 1", along(1), {noncontig64({3, 4}, 4)});
  // Rows longer than a block (each thread takes several elements), strided rows (inner 3),
  // and more rows than one grid holds (the grid-stride loop over rows).
  require_cuda_matches_cpu_with_grads("softmax (2,3,700) dim -1", along(-1), {rand64({2, 3, 700}, 5, -5, 5)});
  require_cuda_matches_cpu_with_grads("softmax (2,300,3) dim 1", along(1), {rand64({2, 300, 3}, 6, -5, 5)});
  require_cuda_matches_cpu_with_grads("softmax (rows beyond one grid,3) dim 1", along(1),
                                      {rand64({rows_beyond_one_grid(), 3}, 7)});
  require_cuda_matches_cpu_with_grads("softmax () 0-d", along(-1), {rand64({}, 8)});
  // Masked keys, row 1 fully masked: zeros and zero gradient on both devices.
  auto masked = [](const std::vector<Tensor>& in) { return softmax(masked_fill(in[0], in[1], -INFINITY)); };
  Tensor mask = tensor_bool({false, true, false, true, true, true, false, false, false}, {3, 3});
  require_cuda_matches_cpu_with_grads("softmax masked (2,3,3), row 1 fully masked", masked,
                                      {rand64({2, 3, 3}, 9), mask});
}

TEST_CASE("softmax: on the GPU, fully masked rows give zeros, NaN and +inf give NaN rows, 1000s stay exact") {
  if (!gpu_available_or_skip()) return;
  const Device gpu = Device::cuda();
  Tensor inf = full({2, 3}, -INFINITY, kF64, gpu).requires_grad_();
  Tensor z = softmax(inf);
  require_values(to_device_copy(z, kCPU), {0, 0, 0, 0, 0, 0}, 0);
  z.backward(ones({2, 3}, kF64, gpu));
  require_values(to_device_copy(inf.grad(), kCPU), {0, 0, 0, 0, 0, 0}, 0);
  Tensor bad = tensor({NAN, -INFINITY, 1, INFINITY, 0, 0}, {2, 3}, kF64, gpu);
  for (double v : to_device_copy(softmax(bad), kCPU).to_vector<double>()) CHECK(std::isnan(v));
  for (DType dt : {kF64, kF32}) {
    CAPTURE(dtype_name(dt));
    require_values(to_device_copy(softmax(tensor({1000, 1001, 1002}, {3}, dt, gpu)), kCPU),
                   {0.090030573170, 0.244728471055, 0.665240955775}, dt == kF64 ? 1e-12 : 1e-7);
  }
}

TEST_CASE("softmax: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  require_gradcheck("softmax", [](const std::vector<Tensor>& in) { return softmax(in[0], 1); },
                    on_gpu({rand64({2, 3, 4}, 10, -3, 3)}));
  require_gradcheck("softmax", [](const std::vector<Tensor>& in) { return softmax(in[0], 0); },
                    on_gpu({noncontig64({3, 4}, 11)}));
  Tensor mask = tensor_bool({false, true, false, true, true, true, false, false, false}, {3, 3});
  require_gradcheck("softmax",
                    [](const std::vector<Tensor>& in) { return softmax(masked_fill(in[0], in[1], -INFINITY)); },
                    on_gpu({rand64({2, 3, 3}, 12), mask}));
}

// The float32 kernel takes rows four at a time (kRowGroup, ops/common/vec_math.h): each row must
// come out bit for bit as when it is alone, whatever its length, fully masked and NaN rows too.
TEST_CASE("softmax: float32 rows taken four at a time equal each row alone, bit for bit") {
  constexpr int64_t kRows = 6;  // a group of four, then two alone
  for (int64_t n : {1, 2, 15, 16, 17, 64, 100}) {
    CAPTURE(n);
    std::vector<double> x = rand64({kRows, n}, 60 + n, -4, 4).to_vector<double>();
    std::fill(x.begin() + n, x.begin() + 2 * n, -INFINITY);  // row 1 fully masked
    std::fill(x.begin() + 3 * n, x.begin() + 4 * n, -INFINITY);
    x[4 * n - 1] = NAN;  // row 3: a NaN behind -inf
    require_rows_match_alone([](const Tensor& t) { return softmax(t, -1); }, x,
                             rand64({kRows, n}, 70 + n).to_vector<double>(), kRows, n);
    const std::vector<float> y = softmax(tensor(x, {kRows, n}, kF32), -1).to_vector<float>();
    CHECK(y[n] == 0);
    CHECK(std::isnan(y[4 * n - 1]));
  }
}

TEST_CASE("softmax: the OpenMP path (a large tensor) equals one thread") {
  Tensor x = rand64({33, 1000}, 51, -5, 5);  // 33000 elements: above kParallelGrain
  Tensor g = rand64({33, 1000}, 52).detach();
  Tensor y = softmax(x, 0);
  y.backward(g);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  Tensor x1 = x.detach();
  x1.requires_grad_();
  Tensor y1 = softmax(x1, 0);
  y1.backward(g);
  omp_set_num_threads(threads);
  require_close(y, y1, 0, 0);
  require_close(x.grad(), x1.grad(), 0, 0);
  require_close(sum(y, {0}), ones({1000}, kF64), 1e-12, 0);
}

TEST_CASE("softmax: second order, forward mode, and the reference rule against the kernel") {
  for (int64_t dim : {0, -1}) {
    CAPTURE(dim);
    const GradcheckFn fn = [&](const std::vector<Tensor>& in) { return softmax(in[0], dim); };
    require_second_order(fn, {rand64({3, 4}, 1, -2, 2)});
    require_forward_mode(fn, {noncontig64({3, 4}, 2, -2, 2)});
    require_reference_matches_fast(fn, {noncontig64({3, 4}, 2, -2, 2)});
  }
  // a fully masked row (zeros, zero gradient) and a partly masked one, by both rules
  const Tensor mask = tensor_bool({true, true, true, false, true, false}, {2, 3});
  require_reference_matches_fast(
      [&](const std::vector<Tensor>& in) { return softmax(masked_fill(in[0], mask, -INFINITY), 1); },
      {rand64({2, 3}, 3)});
}
