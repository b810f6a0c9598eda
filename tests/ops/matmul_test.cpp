#include "ops/matmul/matmul.h"
#include "higher_order_test_util.h"
#include "test_util.h"
#include "cuda_parity_test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// A view of x with its last two dims swapped (a transposed, column-major matrix).
Tensor transposed(const Tensor& x) {
  Shape shape = x.shape(), strides = x.strides();
  std::swap(shape[x.dim() - 2], shape[x.dim() - 1]);
  std::swap(strides[x.dim() - 2], strides[x.dim() - 1]);
  return make_view(x, shape, strides, x.offset());
}

// The oracle: plain loops in f64 over a (batch..., M, K) and b (batch..., K, N), broadcasting
// their batch dims to `batch` first.
Tensor naive_matmul(const Tensor& a, const Tensor& b, const Shape& batch) {
  const int64_t M = a.size(-2), K = a.size(-1), N = b.size(-1);
  Shape sa = batch, sb = batch, so = batch;
  sa.insert(sa.end(), {M, K});
  sb.insert(sb.end(), {K, N});
  so.insert(so.end(), {M, N});
  std::vector<double> x = to_dtype_copy(expand(a, sa), kF64).to_vector<double>();
  std::vector<double> y = to_dtype_copy(expand(b, sb), kF64).to_vector<double>();
  std::vector<double> z(numel(so), 0.0);
  for (int64_t p = 0; p < numel(batch); ++p)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        for (int64_t k = 0; k < K; ++k) z[(p * M + i) * N + j] += x[(p * M + i) * K + k] * y[(p * K + k) * N + j];
  return tensor(z, so, kF64);
}

}  // namespace

TEST_CASE("matmul: hand-worked 2x3 @ 3x2") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({7, 8, 9, 10, 11, 12}, {3, 2});
  // [1*7+2*9+3*11, 1*8+2*10+3*12] = [58, 64];  [4*7+5*9+6*11, 4*8+5*10+6*12] = [139, 154]
  Tensor out = matmul(a, b);
  CHECK(out.shape() == Shape{2, 2});
  require_values(out, {58, 64, 139, 154});
}

TEST_CASE("matmul: vector cases") {
  Tensor v = tensor({1, 2, 3});
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor b = tensor({7, 8, 9, 10, 11, 12}, {3, 2});
  Tensor batched = arange(0, 12, 1, kF32);  // (2,2,3): [[0,1,2],[3,4,5]], [[6,7,8],[9,10,11]]
  batched = reshape(batched, {2, 2, 3});

  Tensor dot = matmul(v, tensor({4, 5, 6}));  // 4 + 10 + 18
  CHECK(dot.shape() == Shape{});
  CHECK(dot.item() == 32);  // 0-d: compared as a number
  Tensor vm = matmul(v, b);  // [7+18+33, 8+20+36]
  CHECK(vm.shape() == Shape{2});
  require_values(vm, {58, 64});
  Tensor mv = matmul(a, tensor({1, 1, 1}));  // row sums
  CHECK(mv.shape() == Shape{2});
  require_values(mv, {6, 15});
  Tensor vb = matmul(tensor({1, 2}), batched);  // [1,2] @ each (2,3): [0+6, 1+8, 2+10], [6+18, 7+20, 8+22]
  CHECK(vb.shape() == Shape{2, 3});
  require_values(vb, {6, 9, 12, 24, 27, 30});
  Tensor bv = matmul(batched, v);  // each row . [1,2,3]: 0+2+6, 3+8+15, 6+14+24, 9+20+33
  CHECK(bv.shape() == Shape{2, 2});
  require_values(bv, {8, 26, 44, 62});
}

TEST_CASE("matmul: broadcast batch dims") {
  Tensor a = rand64({2, 1, 3, 4}, 1).detach();
  Tensor b = rand64({5, 4, 6}, 2).detach();
  Tensor out = matmul(a, b);
  CHECK(out.shape() == Shape{2, 5, 3, 6});
  require_close(out, naive_matmul(a, b, {2, 5}), 1e-12);
  // A 2-D b shared by the batch, and a 2-D a against a batched b.
  Tensor w = rand64({4, 6}, 3).detach();
  require_close(matmul(a, w), naive_matmul(a, w, {2, 1}), 1e-12);
  require_close(matmul(w, rand64({6, 2}, 4).detach()), naive_matmul(w, rand64({6, 2}, 4), {}), 1e-12);
  Tensor c = rand64({3, 3, 4}, 5).detach();
  require_close(matmul(rand64({2, 3}, 6).detach(), c), naive_matmul(rand64({2, 3}, 6), c, {3}), 1e-12);
}

TEST_CASE("matmul: transposed, sliced and expanded operands") {
  // a and b stored transposed: a^T = [[1,4],[2,5],[3,6]], b^T = [[7,9,11],[8,10,12]].
  Tensor a = transposed(tensor({1, 4, 2, 5, 3, 6}, {3, 2}));
  Tensor b = transposed(tensor({7, 9, 11, 8, 10, 12}, {2, 3}));
  REQUIRE_FALSE(a.is_contiguous());
  require_values(matmul(a, b), {58, 64, 139, 154});
  require_values(matmul(a, tensor({7, 8, 9, 10, 11, 12}, {3, 2})), {58, 64, 139, 154});
  require_values(matmul(tensor({1, 2, 3, 4, 5, 6}, {2, 3}), b), {58, 64, 139, 154});
  // Every other column of a (2,6): neither row- nor column-major, so it is copied first.
  Tensor wide = tensor({1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0}, {2, 6});
  require_values(matmul(make_view(wide, {2, 3}, {6, 2}, 0), b), {58, 64, 139, 154});
  // Stride-0 rows (an expanded row vector): every row of the result is the same.
  Tensor row = expand(tensor({1, 2, 3}, {1, 3}), {2, 3});
  require_values(matmul(row, b), {58, 64, 58, 64});
  // Batched transposed views and a strided 1-D vector.
  Tensor x = rand64({2, 5, 3}, 7).detach(), y = rand64({2, 4, 5}, 8).detach();
  require_close(matmul(transposed(x), transposed(y)), naive_matmul(transposed(x), transposed(y), {2}), 1e-12);
  Tensor every_other = make_view(tensor({1, 0, 2, 0, 3, 0}), {3}, {2}, 0);
  CHECK(matmul(every_other, tensor({4, 5, 6})).item() == 32);
}

TEST_CASE("matmul: blocked kernel against the oracle (f32 and f64)") {
  // Sizes with part-empty micro-kernel tiles, in all four layouts (gemm_cpu_test.cpp has more).
  Tensor a = rand64({2, 10, 130}, 9).detach();
  Tensor bt = rand64({260, 130}, 10).detach();
  Tensor expected = naive_matmul(a, transposed(bt), {2});
  require_close(matmul(a, transposed(bt)), expected, 1e-10);
  require_close(matmul(to_dtype_copy(a, kF32), transposed(to_dtype_copy(bt, kF32))), expected, 1e-4, 1e-4);
  require_close(matmul(a, contiguous_copy(transposed(bt))), expected, 1e-10);
  // a stored column-major too, against b read both ways.
  Tensor a_cm = transposed(contiguous_copy(transposed(a)));
  REQUIRE_FALSE(a_cm.is_contiguous());
  require_close(matmul(a_cm, transposed(bt)), expected, 1e-10);
  require_close(matmul(a_cm, contiguous_copy(transposed(bt))), expected, 1e-10);
}

TEST_CASE("gradcheck matmul") {
  auto fn = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); };
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3}, {3, 4}},       {{3}, {3}},       {{3}, {3, 4}},       {{2, 3}, {3}},
      {{3}, {2, 3, 4}},       {{2, 3, 4}, {4}}, {{2, 1, 3, 4}, {5, 4, 2}}, {{2, 3, 4}, {4, 2}},
      {{3, 4}, {2, 4, 2}},    {{1, 2, 3}, {2, 3, 1}},
  };
  for (const auto& [sa, sb] : cases) {
    const std::string shapes = shape_str(sa) + " @ " + shape_str(sb);  // INFO cannot take structured bindings in clang 14
    INFO(shapes);
    require_gradcheck("matmul", fn, {rand64(sa, 1), rand64(sb, 2)});
  }
  // Transposed (non-contiguous) operands, and one operand held constant.
  require_gradcheck("matmul", fn, {noncontig64({3, 4}, 1), noncontig64({4, 2}, 2)});
  require_gradcheck("matmul", fn, {noncontig64({2, 3, 4}, 1), rand64({4, 5}, 2)});
  require_gradcheck("matmul", fn, {rand64({2, 3}, 1), rand64({3, 4}, 2).detach()});
  require_gradcheck("matmul", fn, {rand64({2, 3}, 1).detach(), noncontig64({2, 3, 4}, 2)});
}

TEST_CASE("matmul: float32 forward and backward match float64") {
  for (const auto& [sa, sb] : std::vector<std::pair<Shape, Shape>>{{{2, 1, 3, 4}, {5, 4, 6}}, {{4}, {2, 4, 3}}}) {
    Tensor a64 = rand64(sa, 3), b64 = rand64(sb, 4);
    Tensor a32 = to_dtype_copy(a64, kF32).requires_grad_(), b32 = to_dtype_copy(b64, kF32).requires_grad_();
    Tensor out64 = matmul(a64, b64), out32 = matmul(a32, b32);
    CHECK(out32.dtype() == kF32);
    require_close(out32, out64, 1e-5);
    sum(out64).backward();
    sum(out32).backward();
    CHECK(a32.grad().dtype() == kF32);
    require_close(a32.grad(), a64.grad(), 1e-5);
    require_close(b32.grad(), b64.grad(), 1e-5);
  }
}

TEST_CASE("matmul: errors name the op and both shapes") {
  CHECK_THROWS_WITH_AS(matmul(zeros({2, 3, 4}), zeros({5, 6})), "matmul: inner dimensions differ: a (2,3,4) @ b (5,6)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({3}), zeros({4})), "matmul: inner dimensions differ: a (3,) @ b (4,)", tg::Error);
  CHECK_THROWS_WITH_AS(matmul(scalar(2), zeros({3})), "matmul: both operands need at least 1 dim, got a () @ b (3,)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({2, 3, 4}), zeros({3, 4, 5})),
                       "matmul: batch dims do not broadcast: a (2,3,4) @ b (3,4,5)", tg::Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({2, 3}), zeros({3, 2}, kF64)), doctest::Contains("matmul"), tg::Error);
  CHECK_THROWS_WITH_AS(matmul(zeros({2, 3}, kI64), zeros({3, 2}, kI64)), doctest::Contains("matmul"), tg::Error);
}

TEST_CASE("matmul: size 0 dims give empty or zero gradients to both operands") {
  // K = 0, M = 0 and N = 0, with a (B, M, K) and a shared weight b (K, N), as the composed Linear
  // multiplies: the fast rule's paired products must not take these.
  struct Case { Shape a, b; };
  for (const Case& c : {Case{{2, 3, 0}, {0, 4}}, Case{{2, 0, 3}, {3, 4}}, Case{{2, 3, 5}, {5, 0}}}) {
    CAPTURE(shape_str(c.a));
    const Tensor a = ones(c.a).requires_grad_(), b = ones(c.b).requires_grad_();
    const Tensor out = matmul(a, b);
    out.backward(ones(out.shape()));
    CHECK(a.grad().shape() == c.a);
    CHECK(b.grad().shape() == c.b);
    for (float v : a.grad().to_vector<float>()) CHECK(v == (c.b[1] == 0 ? 0.0f : float(c.b[1])));
    for (float v : b.grad().to_vector<float>()) CHECK(v == float(c.a[0] * c.a[1]));
  }
}

TEST_CASE("matmul: CUDA matches the CPU reference") {
  if (!gpu_available_or_skip()) return;
  const Device gpu = Device::cuda(0);
  // The gradients of broadcast batch dims are summed on the GPU too (sum_to).
  struct Case { Tensor a, b; };
  const std::vector<Case> cases = {
      {rand64({2, 3}, 1), rand64({3, 4}, 2)},
      {rand64({3}, 1), rand64({3}, 2)},
      {rand64({2, 3, 4}, 1), rand64({4}, 2)},
      {noncontig64({2, 3, 4}, 1), noncontig64({4, 5}, 2)},  // column-major operands
      {rand64({3}, 1), rand64({2, 3, 4}, 2)},
      {rand64({2, 1, 3, 4}, 1), rand64({5, 4, 6}, 2)},  // non-uniform batch offsets: copied
      {rand64({2, 0}, 1), rand64({0, 3}, 2)},           // K = 0: zeros
  };
  for (const auto& [a, b] : cases) {
    const std::string operands = a.describe() + " @ " + b.describe();  // INFO cannot take structured bindings in clang 14
    INFO(operands);
    for (DType dtype : {kF64, kF32}) {
      Tensor ac = to_dtype_copy(a, dtype).requires_grad_(), bc = to_dtype_copy(b, dtype).requires_grad_();
      Tensor ag = to_device_copy(ac.detach(), gpu).requires_grad_();
      Tensor bg = to_device_copy(bc.detach(), gpu).requires_grad_();
      Tensor out_c = matmul(ac, bc), out_g = matmul(ag, bg);
      CHECK(out_g.is_cuda());
      require_close(to_device_copy(out_g, kCPU), out_c, 1e-5, 1e-5);
      Tensor grad = to_dtype_copy(rand64(out_c.shape(), 3).detach(), dtype);
      out_c.backward(grad);
      out_g.backward(to_device_copy(grad, gpu));
      require_close(to_device_copy(ag.grad(), kCPU), ac.grad(), 1e-5, 1e-5);
      require_close(to_device_copy(bg.grad(), kCPU), bc.grad(), 1e-5, 1e-5);
    }
  }
}

TEST_CASE("matmul: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); };
  require_gradcheck("matmul", fn, on_gpu({rand64({2, 3, 4}, 1), rand64({4, 5}, 2)}));
  require_gradcheck("matmul", fn, on_gpu({noncontig64({3, 4}, 3), noncontig64({4, 2}, 4)}));  // transposed operands
  require_gradcheck("matmul", fn, on_gpu({rand64({2, 1, 3, 4}, 5), rand64({5, 4, 2}, 6)}));   // broadcast batch
}

TEST_CASE("matmul: second order, forward mode and the reference rule, every shape case") {
  const std::vector<std::pair<Shape, Shape>> cases = {
      {{2, 3}, {3, 4}}, {{3}, {3, 4}}, {{2, 3}, {3}}, {{3}, {3}}, {{3}, {2, 3, 2}},
      {{2, 1, 2, 3}, {3, 3, 2}},  // broadcast batch dims
      {{2, 2, 3}, {3, 2}},        // a shared weight: db folds the batch into the rows
  };
  const GradcheckFn fn = [](const std::vector<Tensor>& in) { return matmul(in[0], in[1]); };
  uint64_t seed = 1;
  for (const auto& [a, b] : cases) {
    // CAPTURE cannot take a structured binding in clang 14.
    const std::string shapes = shape_str(a) + " @ " + shape_str(b);
    CAPTURE(shapes);
    const std::vector<Tensor> inputs{rand64(a, seed++), rand64(b, seed++)};
    require_second_order(fn, inputs);
    require_forward_mode(fn, inputs);
    require_reference_matches_fast(fn, inputs);
  }
  require_reference_matches_fast(fn, {noncontig64({4, 3}, 20), noncontig64({3, 2}, 21)});
}
