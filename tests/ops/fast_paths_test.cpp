// The contiguous and float32 fast paths of the memory-bound CPU kernels give what the general
// (strided, float64) paths give: each case runs an op once on inputs that take the fast path
// and once on the same values laid out so that they do not (a non-contiguous copy, a
// materialised broadcast, float64).
#include <cmath>
#include <vector>

#include "dropout_draw_rule.h"
#include "ops/common/elementwise_cpu.h"
#include "ops/common/vec_math.h"
#include "ops/gelu/gelu.h"
#include "ops/tanh/tanh.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

Tensor f32(const Tensor& t) { return to_dtype_copy(t.detach(), kF32); }
// The same values as t (2-D), in a non-contiguous layout: the transpose of a contiguous transpose.
Tensor strided(const Tensor& t) { return transpose(contiguous_copy(transpose(t.detach(), 0, 1)), 0, 1); }

}  // namespace

TEST_CASE("fast paths: exp_vec(float) is within a few ulp of exp, 0 below -87.3 and for -inf, NaN for NaN") {
  double worst = 0;
  for (float x = -87.0f; x <= 88.0f; x += 0.01953125f) {
    const double exact = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(exp_vec(x) - exact) / exact);
  }
  CHECK(worst < 4e-7);  // float's epsilon is 1.2e-7
  CHECK(exp_vec(0.0f) == 1.0f);
  CHECK(exp_vec(-INFINITY) == 0.0f);
  CHECK(exp_vec(-100.0f) == 0.0f);
  CHECK(std::isnan(exp_vec(NAN)));
}

TEST_CASE("fast paths: binary ops with a repeated operand (bias, scalar, either side) equal the strided loop") {
  Tensor x = f32(rand64({6, 8}, 1)), bias = f32(rand64({8}, 2)), row = f32(rand64({1, 8}, 3));
  Tensor s = scalar(0.5, kF32), xs = strided(x);
  for (const Tensor& r : {bias, row, s}) {
    require_close(add(x, r), add(xs, r), 0, 0);
    require_close(add(r, x), add(r, xs), 0, 0);
    require_close(sub(r, x), sub(r, xs), 0, 0);  // the operand order survives the swap
    require_close(div(x, r), div(xs, r), 0, 0);
    require_close(mul(r, x), mul(r, xs), 0, 0);
  }
  require_values(sub(s, tensor({1, 2}, {2})), {-0.5, -1.5}, 0);
  // A bias of a (B,T,C) tensor, and a (T,C) table against (B,T,C).
  Tensor x3 = f32(rand64({2, 3, 4}, 4)), table = f32(rand64({3, 4}, 5));
  require_close(add(x3, table), add(contiguous_copy(expand(table, {2, 3, 4})), x3), 0, 0);
}

TEST_CASE("fast paths: elementwise loops in the widest clone give the strided loop's bits (no fused multiply-add)") {
  // tanh's backward g (1 - out^2) and gelu's tanh form hold a * b + c, which a fused multiply-add
  // would round once instead of twice. n: three chunks of the flat loop and a part of a fourth.
  const int64_t n = 3 * kElementwiseChunk + 5;
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor x = to_dtype_copy(rand64({n, 1}, 12, -3, 3), dtype), g = to_dtype_copy(rand64({n, 1}, 13), dtype);
    // the same values, every other element of a (n, 2) tensor: not contiguous, so the strided loop
    auto spread = [](const Tensor& t) { return make_view(contiguous_copy(expand(t, {n, 2})), {n, 1}, {2, 1}, 0); };
    const Tensor xs = spread(x), gs = spread(g);
    auto both = [&](auto op) {
      const Tensor fast = empty({n, 1}, dtype), strided = empty({n, 1}, dtype);
      op(fast, x, g);
      op(strided, xs, gs);
      require_close(fast, strided, 0, 0);
    };
    both([](const Tensor& out, const Tensor& v, const Tensor& d) { tanh_backward_cpu(out, d, v); });
    both([](const Tensor& out, const Tensor& v, const Tensor&) {
      gelu_forward_cpu(out, v, GeluApprox::tanh, kLatestNumerics);
    });
    both([](const Tensor& out, const Tensor& v, const Tensor& d) {
      gelu_backward_cpu(out, d, v, GeluApprox::tanh, kLatestNumerics);
    });
  }
}

TEST_CASE("fast paths: masked_fill with a repeating mask equals the strided loop") {
  Tensor x = f32(rand64({2, 3, 4, 4}, 6));
  std::vector<bool> causal(16);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) causal[i * 4 + j] = j > i;
  Tensor mask = tensor_bool(causal, {4, 4});
  Tensor fast = masked_fill(x, mask, -INFINITY);
  Tensor general = masked_fill(x, expand(mask, {2, 3, 4, 4}), -INFINITY);  // stride-0 mask: not repeating
  require_close(fast, general, 0, 0);
  require_close(masked_fill(x, contiguous_copy(expand(mask, {2, 3, 4, 4})), 2.0),
                masked_fill(x, expand(mask, {2, 3, 4, 4}), 2.0), 0, 0);
  CHECK(fast.to_vector<float>()[1] == -INFINITY);

  // A mask of x's own shape over several chunks of the flat loop and a part of one, both dtypes.
  const int64_t rows = kElementwiseChunk + 1;
  std::vector<bool> scattered(3 * rows);
  for (size_t i = 0; i < scattered.size(); ++i) scattered[i] = (i * 7919) % 5 < 2;
  const Tensor big_mask = tensor_bool(scattered, {3, rows, 1});
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor big = to_dtype_copy(rand64({3, rows, 1}, 7), dtype);
    const Tensor strided = make_view(contiguous_copy(expand(big_mask, {3, rows, 2})), {3, rows, 1}, {2 * rows, 2, 1},
                                     0);  // the same mask, not contiguous
    require_close(masked_fill(big, big_mask, -3.0), masked_fill(big, strided, -3.0), 0, 0);
  }
}

TEST_CASE("fast paths: sum over leading dims (a bias gradient) equals the strided reduction") {
  // 1103 columns: blocks of 512, 512 and 79; the last in two strips of 32 columns, three of 4 and
  // 3 single columns (add_rows_in_order, with AVX-512 or AVX2). Each column adds its rows in order
  // in double, as the strided loop does: the same bits.
  Tensor x = f32(rand64({70, 1103}, 7));
  require_close(sum(x, {0}), sum(strided(x), {0}), 0, 0);
  require_close(sum(x, {0}, true), sum(to_dtype_copy(x, kF64), {0}, true), 1e-5, 0);
}

TEST_CASE("fast paths: add_rows_in_order gives each column's in-order sum with either strip width") {
  // Every width from 1 to 300 in float and in double sums: the AVX-512 strips (16 and 4 vectors
  // of 64 bytes), the 32-byte ones (8 and 1) and the single columns, against a plain loop.
  std::vector<float> rows(7 * 300);
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = static_cast<float>((i * 7919) % 1001) / 7.0f - 70.0f;
  auto row = [&](int64_t k) { return rows.data() + k * 300; };
  auto check = [&](auto zero) {
    using Sum = decltype(zero);
    for (int64_t width = 1; width <= 300; ++width) {
      CAPTURE(width);
      std::vector<Sum> plain(width, Sum(0.5)), wide(width, Sum(0.5)), narrow(width, Sum(0.5));
      for (int64_t k = 0; k < 7; ++k)
        for (int64_t c = 0; c < width; ++c) plain[c] += static_cast<Sum>(row(k)[c]);
      add_rows_in_order(wide.data(), width, 7, row, true);
      add_rows_in_order(narrow.data(), width, 7, row, false);
      CHECK(wide == plain);
      CHECK(narrow == plain);
    }
  };
  check(0.0f);
  check(0.0);
}

TEST_CASE("fast paths: float32 softmax of masked, NaN and large rows behaves as the float64 one") {
  Tensor x = tensor({0, -INFINITY, 1, 2, -INFINITY, -INFINITY, -INFINITY, -INFINITY, NAN, 1, 2, 3, 1000, 999, 0, -1000},
                    {4, 4});
  Tensor y32 = softmax(x), y64 = softmax(to_dtype_copy(x, kF64));
  std::vector<float> a = y32.to_vector<float>();
  std::vector<double> b = y64.to_vector<double>();
  for (size_t i = 0; i < a.size(); ++i) {
    CAPTURE(i);
    if (std::isnan(b[i]))
      CHECK(std::isnan(a[i]));
    else
      CHECK(a[i] == doctest::Approx(b[i]).epsilon(1e-6));
  }
  CHECK(a[1] == 0.0f);  // a masked key: exactly zero
  CHECK(a[4] == 0.0f);  // a fully masked row: zeros
}

TEST_CASE("fast paths: float32 cross_entropy and layer_norm match float64 at Transformer-like widths") {
  Tensor logits = rand64({16, 70}, 8, -5, 5);
  std::vector<int64_t> t(16);
  for (int i = 0; i < 16; ++i) t[i] = (i * 13) % 70;
  t[3] = -100;  // ignored
  require_f32_matches_f64([&](const std::vector<Tensor>& in) { return cross_entropy(in[0], tensor_i64(t, {16})); },
                          {logits});
  require_f32_matches_f64(
      [&](const std::vector<Tensor>& in) {
        return cross_entropy(in[0], tensor_i64(t, {16}), {.reduction = Reduction::none, .label_smoothing = 0.1});
      },
      {logits});
  Tensor x = rand64({5, 130}, 9, -3, 3), w = rand64({130}, 10), b = rand64({130}, 11);
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return layer_norm(in[0], {130}, in[1], in[2]); },
                          {x, w, b});
  require_f32_matches_f64([](const std::vector<Tensor>& in) { return layer_norm(in[0], {130}); }, {x});
}

TEST_CASE("fast paths: float32 dropout (Philox 8 counters at a time) keeps element i by the draw rule") {
  for (int64_t version = kFirstNumerics; version <= kLatestNumerics; ++version)
    for (double p : {0.001, 0.1, 0.5, 0.9, 1 - 1.0 / 256}) {
      const NumericsGuard numerics(version);
      Generator gen(77);
      gen.reserve(5, 4);                          // start at an offset that is not a multiple of 8 counters
      const uint64_t offset = gen.offset();
      Tensor x = full({3, 1001}, 2.0, kF32);      // 3003 elements: a partial block of 32 and of 2048 at the end
      std::vector<float> y = dropout(x, p, true, gen).to_vector<float>();
      const float scale = 2.0f * static_cast<float>(1 / (1 - p));  // as the kernel: x * float(1 / (1-p))
      int wrong = 0;
      for (uint64_t i = 0; i < y.size(); ++i)
        wrong += y[i] != (dropout_uniform_at(77, offset, i, p, version) > p ? scale : 0.0f);
      CAPTURE(version);
      CAPTURE(p);
      CHECK(wrong == 0);
      CHECK(gen.offset() == offset + dropout_counters(y.size(), p, version));
    }
}

TEST_CASE("fast paths: float32 dropout backward in chunks of the widest clone is keep ? grad * scale : 0 exactly") {
  // n: three chunks of the flat loop and a part of a fourth; the mask keeps 2 elements of every 3.
  const int64_t n = 3 * kElementwiseChunk + 5;
  const double p = 0.3;
  std::vector<bool> kept(n);
  for (int64_t i = 0; i < n; ++i) kept[i] = i % 3 != 1;
  const Tensor keep = tensor_bool(kept, {n}), grad = f32(rand64({n}, 14, -3, 3));
  const Tensor x = zeros({n}, kF32).requires_grad_();
  dropout(x, keep, p).backward(grad);
  const std::vector<float> g = grad.to_vector<float>(), dx = x.grad().to_vector<float>();
  const auto scale = static_cast<float>(1 / (1 - p));  // as the kernel: grad * float(1 / (1-p))
  int64_t wrong = 0;
  for (int64_t i = 0; i < n; ++i) wrong += dx[i] != (kept[i] ? g[i] * scale : 0.0f);
  CHECK(wrong == 0);
}
