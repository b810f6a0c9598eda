#include <omp.h>

#include "cuda_parity_test_util.h"
#include "ops/layer_norm/layer_norm.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("layer_norm: hand-worked forward and backward of [1,2,3,4]") {
  // mean 2.5, deviations (-1.5,-0.5,0.5,1.5), biased variance (2.25+0.25+0.25+2.25)/4 = 1.25.
  // eps 1e-12: rstd = 1/sqrt(1.25) = 0.894427191, norm = deviation * rstd.
  Tensor x = tensor({1, 2, 3, 4}, {1, 4}, kF64);
  require_values(layer_norm(x, {4}, {}, {}, 1e-12), {-1.341640786499, -0.447213595500, 0.447213595500, 1.341640786499},
                 1e-11);
  // eps 1e-5: rstd = 1/sqrt(1.25001) = 0.894423613313; w = (1,2,0.5,-1), b = (0,1,2,3):
  // out = norm * w + b = (-1.341635419969, 0.105576386687, 2.223605903328, 1.658364580031)
  x.requires_grad_();
  Tensor w = tensor({1, 2, 0.5, -1}, {4}, kF64), b = tensor({0, 1, 2, 3}, {4}, kF64);
  w.requires_grad_();
  b.requires_grad_();
  Tensor y = layer_norm(x, {4}, w, b);
  require_values(y, {-1.341635419969, 0.105576386687, 2.223605903328, 1.658364580031}, 1e-11);
  // g = (1,0,0,0): dnorm = g * w = (1,0,0,0); mean(dnorm) = 1/4; mean(dnorm * norm) = norm0/4 = -0.335408855
  // dx_i = rstd * (dnorm_i - 1/4 + norm_i * 0.335408855); dweight = g * norm; dbias = g.
  std::string entry = y.producer()->str();
  CHECK(entry.find("saved: x, mean, rstd, weight") != std::string::npos);
  CHECK(entry.find("normalized_shape=(4,)") != std::string::npos);
  y.backward(tensor({1, 0, 0, 0}, {1, 4}, kF64));
  require_values(x.grad(), {0.268330303893, -0.357768372025, -0.089443434631, 0.178881502763}, 1e-11);
  require_values(w.grad(), {-1.341635419969, 0, 0, 0}, 1e-11);
  require_values(b.grad(), {1, 0, 0, 0}, 1e-12);
}

TEST_CASE("layer_norm: rows are independent, mean and rstd have the leading dims") {
  // Row 2 is row 1 scaled by 10 and shifted by 5: the same normalised values (eps tiny).
  Tensor x = tensor({1, 2, 3, 4, 15, 25, 35, 45}, {2, 1, 4}, kF64);
  Tensor y = layer_norm(x, {1, 4}, {}, {}, 1e-12);
  CHECK(y.shape() == Shape{2, 1, 4});
  require_values(y, {-1.341640786499, -0.447213595500, 0.447213595500, 1.341640786499, -1.341640786499,
                     -0.447213595500, 0.447213595500, 1.341640786499}, 1e-11);
  x.requires_grad_();
  Tensor z = layer_norm(x, {1, 4});
  CHECK(z.producer()->saved[1].tensor.shape() == Shape{2});  // mean
  CHECK(z.producer()->saved[2].tensor.shape() == Shape{2});  // rstd
  Tensor v = tensor({1, 2, 3, 4}, {4}, kF64);
  v.requires_grad_();
  CHECK(layer_norm(v, {4}).producer()->saved[1].tensor.shape() == Shape{});  // no leading dims
}

TEST_CASE("gradcheck layer_norm") {
  auto affine = [](const std::vector<Tensor>& in) { return layer_norm(in[0], in[1].shape(), in[1], in[2]); };
  auto plain = [](const Shape& normalized) {
    return [normalized](const std::vector<Tensor>& in) { return layer_norm(in[0], normalized); };
  };
  require_gradcheck("layer_norm", affine, {rand64({2, 3, 4}, 1), rand64({4}, 2), rand64({4}, 3)});
  require_gradcheck("layer_norm", affine, {rand64({2, 3, 4}, 4), rand64({3, 4}, 5), rand64({3, 4}, 6)});
  require_gradcheck("layer_norm", affine, {rand64({5}, 7), rand64({5}, 8), rand64({5}, 9)});
  require_gradcheck("layer_norm", plain({5}), {rand64({3, 5}, 10)});
  require_gradcheck("layer_norm", plain({2, 3}), {rand64({2, 2, 3}, 11)});
  // weight only, then bias only
  require_gradcheck("layer_norm", [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}, in[1]); },
                    {rand64({3, 4}, 12), rand64({4}, 13)});
  require_gradcheck("layer_norm", [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}, {}, in[1]); },
                    {rand64({3, 4}, 14), rand64({4}, 15)});
  // non-contiguous x, and a non-contiguous weight
  require_gradcheck("layer_norm", affine, {noncontig64({3, 4}, 16), rand64({4}, 17), rand64({4}, 18)});
  require_gradcheck("layer_norm", affine, {noncontig64({2, 3, 4}, 19), noncontig64({3, 4}, 20), rand64({3, 4}, 21)});
  // only weight and bias need gradients
  require_gradcheck("layer_norm", affine, {rand64({3, 4}, 22).detach(), rand64({4}, 23), rand64({4}, 24)});
}

TEST_CASE("layer_norm: constant and nearly constant rows stay finite and accurate") {
  // 1e4 + (0, 1e-3, 2e-3, 3e-3) is [1,2,3,4] scaled by 1e-3 and shifted: with eps tiny the same
  // normalised values. E[x^2] - E[x]^2 would cancel 1e8 against 1e8 here; two passes do not.
  Tensor near = tensor({1e4, 1e4 + 1e-3, 1e4 + 2e-3, 1e4 + 3e-3}, {1, 4}, kF64);
  require_values(layer_norm(near, {4}, {}, {}, 1e-12),
                 {-1.341640786499, -0.447213595500, 0.447213595500, 1.341640786499}, 1e-6);
  for (DType dtype : {kF64, kF32}) {
    CAPTURE(dtype_name(dtype));
    // Row 0 constant (variance 0), row 1 nearly constant.
    Tensor x = tensor({3, 3, 3, 3, 1, 1.0001, 0.9999, 1.0002}, {2, 4}, dtype);
    Tensor w = tensor({1, 2, 3, 4}, {4}, dtype), b = tensor({0.5, 0.5, 0.5, 0.5}, {4}, dtype);
    x.requires_grad_();
    w.requires_grad_();
    b.requires_grad_();
    Tensor y = layer_norm(x, {4}, w, b);
    CHECK(all_finite(y));
    std::vector<double> yv = to_dtype_copy(y, kF64).to_vector<double>();
    for (int c = 0; c < 4; ++c) CHECK(yv[c] == 0.5);  // the constant row gives exactly the bias
    y.backward(tensor({1, -2, 0.5, 3, 1, -2, 0.5, 3}, {2, 4}, dtype));
    CHECK(all_finite(x.grad()));
    CHECK(all_finite(w.grad()));
    CHECK(all_finite(b.grad()));
  }
}

TEST_CASE("layer_norm: float32 matches float64, non-contiguous gradient") {
  // 90 rows: float32 sums dweight and dbias in blocks of 32 rows (two whole, one part-empty).
  Tensor x64 = rand64({3, 30, 8}, 30, -3, 3).detach(), w64 = rand64({8}, 31).detach(), b64 = rand64({8}, 32).detach();
  Tensor x32 = to_dtype_copy(x64, kF32), w32 = to_dtype_copy(w64, kF32), b32 = to_dtype_copy(b64, kF32);
  for (Tensor* t : {&x64, &w64, &b64, &x32, &w32, &b32}) t->requires_grad_();
  Tensor y64 = layer_norm(x64, {8}, w64, b64), y32 = layer_norm(x32, {8}, w32, b32);
  CHECK(y32.dtype() == kF32);
  require_close(y32, y64, 1e-5, 1e-5);
  Tensor g64 = noncontig64({3, 30, 8}, 33).detach();
  y64.backward(g64);
  y32.backward(to_dtype_copy(g64, kF32));
  require_close(x32.grad(), x64.grad(), 1e-5, 1e-5);
  require_close(w32.grad(), w64.grad(), 1e-5, 1e-5);
  require_close(b32.grad(), b64.grad(), 1e-5, 1e-5);
}

// The float32 forward takes rows four at a time (kRowGroup, ops/common/vec_math.h): each row must
// come out bit for bit as when it is alone, whatever its length, with and without weight and bias;
// so must its gradient, whichever rows backward takes together.
TEST_CASE("layer_norm: float32 rows taken four at a time equal each row alone, bit for bit") {
  constexpr int64_t kRows = 6;  // a group of four, then two alone
  for (int64_t C : {1, 2, 15, 16, 17, 64, 100, 128}) {
    for (bool affine : {true, false}) {
      CAPTURE(C);
      CAPTURE(affine);
      const Tensor w = affine ? to_dtype_copy(rand64({C}, 100 + C), kF32) : Tensor();
      const Tensor b = affine ? to_dtype_copy(rand64({C}, 110 + C), kF32) : Tensor();
      require_rows_match_alone([&](const Tensor& x) { return layer_norm(x, {C}, w, b); },
                               rand64({kRows, C}, 80 + C, -3, 3).to_vector<double>(),
                               rand64({kRows, C}, 90 + C).to_vector<double>(), kRows, C);
    }
  }
}

TEST_CASE("layer_norm: weight and bias gradients do not depend on the thread count") {
  // 64 rows of 1024: above the parallel grain, so the column blocks differ with the thread count.
  for (DType dtype : {kF64, kF32}) {  // float32: row blocks fixed by the shape; float64: column blocks
    INFO(dtype_name(dtype));
    Tensor x = to_dtype_copy(rand64({64, 1024}, 40), dtype), g = to_dtype_copy(rand64({64, 1024}, 41), dtype);
    const int threads = omp_get_max_threads();
    std::vector<std::vector<double>> dw, db;
    for (int t : {1, 2, 3}) {
      omp_set_num_threads(t);
      Tensor w = ones({1024}, dtype), b = zeros({1024}, dtype);
      w.requires_grad_();
      b.requires_grad_();
      layer_norm(x, {1024}, w, b).backward(g);
      dw.push_back(to_dtype_copy(w.grad(), kF64).to_vector<double>());
      db.push_back(to_dtype_copy(b.grad(), kF64).to_vector<double>());
    }
    omp_set_num_threads(threads);
    CHECK(dw[1] == dw[0]);
    CHECK(dw[2] == dw[0]);
    CHECK(db[1] == db[0]);
    CHECK(db[2] == db[0]);
  }
}

TEST_CASE("layer_norm: errors name the op and print the shapes") {
  Tensor x = ones({2, 3, 4});
  CHECK_THROWS_WITH_AS(layer_norm(x, {3}),
                       doctest::Contains("layer_norm: normalized_shape (3,) must be non-empty, positive and equal "
                                         "to the trailing dims of x (2,3,4)"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {}), doctest::Contains("normalized_shape ()"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {1, 2, 3, 4}), doctest::Contains("x (2,3,4)"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(empty({2, 0}), {0}), doctest::Contains("layer_norm: normalized_shape (0,)"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {3, 4}, ones({4})),
                       doctest::Contains("layer_norm: weight has shape (4,) but normalized_shape is (3,4)"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {4}, ones({4}), ones({1, 4})),
                       doctest::Contains("layer_norm: bias has shape (1,4) but normalized_shape is (4,)"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {4}, ones({4}, kF64)), doctest::Contains("layer_norm"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {4}, {}, {}, 0), doctest::Contains("layer_norm: eps must be positive, got 0"),
                       Error);
  CHECK_THROWS_WITH_AS(layer_norm(x, {4}, {}, {}, -1e-5), doctest::Contains("eps must be positive"), Error);
  CHECK_THROWS_WITH_AS(layer_norm(tensor_i64({1, 2}), {2}), doctest::Contains("layer_norm"), Error);
}

TEST_CASE("layer_norm: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  auto affine = [](const std::vector<Tensor>& in) { return layer_norm(in[0], in[1].shape(), in[1], in[2]); };
  auto plain = [](const Shape& normalized) {
    return [normalized](const std::vector<Tensor>& in) { return layer_norm(in[0], normalized); };
  };
  require_cuda_matches_cpu_with_grads("layer_norm x (2,3,4) weight/bias (4)", affine,
                                      {rand64({2, 3, 4}, 1), rand64({4}, 2), rand64({4}, 3)});
  require_cuda_matches_cpu_with_grads("layer_norm x (2,3,4) weight/bias (3,4)", affine,
                                      {rand64({2, 3, 4}, 4), rand64({3, 4}, 5), rand64({3, 4}, 6)});
  require_cuda_matches_cpu_with_grads("layer_norm x (5) one row", affine,
                                      {rand64({5}, 7), rand64({5}, 8), rand64({5}, 9)});
  require_cuda_matches_cpu_with_grads("layer_norm x (3,5) no affine", plain({5}), {rand64({3, 5}, 10, -3, 3)});
  require_cuda_matches_cpu_with_grads("layer_norm weight only",
                                      [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}, in[1]); },
                                      {rand64({3, 4}, 11), rand64({4}, 12)});
  require_cuda_matches_cpu_with_grads("layer_norm bias only",
                                      [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}, {}, in[1]); },
                                      {rand64({3, 4}, 13), rand64({4}, 14)});
  require_cuda_matches_cpu_with_grads("layer_norm non-contiguous x (2,3,4) and weight (3,4)", affine,
                                      {noncontig64({2, 3, 4}, 15), noncontig64({3, 4}, 16), rand64({3, 4}, 17)});
  require_cuda_matches_cpu_with_grads("layer_norm only weight and bias need grad", affine,
                                      {rand64({3, 4}, 18).detach(), rand64({4}, 19), rand64({4}, 20)});
  // Rows longer than a block (C = 700 > 256 threads), and many rows for the column sums.
  require_cuda_matches_cpu_with_grads("layer_norm x (6,700)", affine,
                                      {rand64({6, 700}, 21, -3, 3), rand64({700}, 22), rand64({700}, 23)});
  // More rows than one grid holds: the grid-stride loop over rows. Rows of 3 with a small
  // variance have large, cancelling gradients: float32 on the CPU and on the GPU (which sums in
  // double) each miss the float64 gradient by up to 6.5 (1e-5 + 1e-5 |g|) there (measured with
  // the CUDA emulator), so they can differ by twice that.
  require_cuda_matches_cpu_with_grads("layer_norm x (rows beyond one grid,3)", affine,
                                      {rand64({rows_beyond_one_grid(), 3}, 24), rand64({3}, 25), rand64({3}, 26)},
                                      1e-4, 1e-4);
  // A constant row (variance 0) and a nearly constant one stay finite.
  require_cuda_matches_cpu_with_grads("layer_norm constant rows", affine,
                                      {tensor({3, 3, 3, 3, 1, 1.0001, 0.9999, 1.0002}, {2, 4}, kF64).requires_grad_(),
                                       rand64({4}, 27), rand64({4}, 28)}, 1e-4, 1e-4);
}

TEST_CASE("layer_norm: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  auto affine = [](const std::vector<Tensor>& in) { return layer_norm(in[0], in[1].shape(), in[1], in[2]); };
  require_gradcheck("layer_norm", affine, on_gpu({rand64({2, 3, 4}, 30), rand64({4}, 31), rand64({4}, 32)}));
  require_gradcheck("layer_norm", affine, on_gpu({noncontig64({2, 3, 4}, 33), rand64({3, 4}, 34), rand64({3, 4}, 35)}));
  require_gradcheck("layer_norm", [](const std::vector<Tensor>& in) { return layer_norm(in[0], {5}); },
                    on_gpu({rand64({3, 5}, 36)}));
}

TEST_CASE("layer_norm: second order, forward mode, and the reference rule against the kernel") {
  const GradcheckFn affine = [](const std::vector<Tensor>& in) { return layer_norm(in[0], {2, 3}, in[1], in[2]); };
  const std::vector<Tensor> inputs{rand64({2, 2, 3}, 1), rand64({2, 3}, 2), rand64({2, 3}, 3)};
  require_second_order(affine, inputs);
  require_forward_mode(affine, inputs);
  require_reference_matches_fast(affine, {noncontig64({2, 2, 3}, 4), rand64({2, 3}, 5), rand64({2, 3}, 6)});
  const GradcheckFn plain = [](const std::vector<Tensor>& in) { return layer_norm(in[0], {4}); };
  require_second_order(plain, {rand64({3, 4}, 7)});
  require_forward_mode(plain, {noncontig64({3, 4}, 8)});
  require_reference_matches_fast(plain, {noncontig64({3, 4}, 8)});
}
