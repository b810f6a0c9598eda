#include "ops/embedding/embedding.h"

#include "core/dispatch.h"
#include "core/forward_ad.h"
#include "cuda_parity_test_util.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {
// weight (4, 3): row v holds 10v + (1, 2, 3), so every picked row is readable by eye.
Tensor table(DType dtype = kF32) {
  return tensor({1, 2, 3, 11, 12, 13, 21, 22, 23, 31, 32, 33}, {4, 3}, dtype);
}
}  // namespace

TEST_CASE("embedding: hand-worked forward picks rows") {
  Tensor idx = tensor_i64({3, 0, 2, 2}, {2, 2});
  Tensor out = embedding(idx, table());
  CHECK(out.shape() == Shape{2, 2, 3});
  require_values(out, {31, 32, 33, 1, 2, 3, 21, 22, 23, 21, 22, 23});
  // 0-d index -> one row (C); padding_idx leaves the forward unchanged.
  Tensor one = full({}, 1, kI64);
  REQUIRE(one.dim() == 0);
  Tensor row = embedding(one, table(), 1);
  CHECK(row.shape() == Shape{3});
  require_values(row, {11, 12, 13});
}

TEST_CASE("embedding: non-contiguous indices and weight") {
  // idx_t is the transpose of (2,3) [[0,1,2],[3,0,1]]: (3,2) [[0,3],[1,0],[2,1]].
  Tensor base = tensor_i64({0, 1, 2, 3, 0, 1}, {2, 3});
  Tensor idx_t = make_view(base, {3, 2}, {1, 3}, 0);
  REQUIRE_FALSE(idx_t.is_contiguous());
  require_values(embedding(idx_t, table()), {1, 2, 3, 31, 32, 33, 11, 12, 13, 1, 2, 3, 21, 22, 23, 11, 12, 13});
  // weight_t (4,3) viewing a (3,4) storage transposed: weight_t[v][c] = storage[c*4 + v].
  Tensor storage = tensor({1, 11, 21, 31, 2, 12, 22, 32, 3, 13, 23, 33}, {3, 4});
  Tensor weight_t = make_view(storage, {4, 3}, {1, 4}, 0);
  require_values(embedding(tensor_i64({2, 1}), weight_t), {21, 22, 23, 11, 12, 13});
}

TEST_CASE("embedding: repeated indices accumulate gradient") {
  Tensor w = table(kF64).requires_grad_();
  Tensor idx = tensor_i64({1, 3, 1, 1}, {2, 2});
  sum(embedding(idx, w)).backward();
  // Row 1 is picked three times, row 3 once, rows 0 and 2 never.
  require_values(w.grad(), {0, 0, 0, 3, 3, 3, 0, 0, 0, 1, 1, 1});
  CHECK_FALSE(idx.requires_grad());
}

TEST_CASE("embedding: large enough for the OpenMP path, repeated indices still accumulate exactly") {
  // 4096 positions cycling through 7 rows, C = 16: 4096 * 16 elements is above kParallelGrain.
  const int64_t N = 4096, V = 7, C = 16;
  std::vector<int64_t> ids(N);
  for (int64_t n = 0; n < N; ++n) ids[n] = n % V;
  Tensor w = zeros({V, C}, kF64).requires_grad_();
  sum(embedding(tensor_i64(ids), w, 6)).backward();
  std::vector<double> expected;
  for (int64_t v = 0; v < V; ++v)  // row v is picked ceil((N - v) / V) times; row 6 is padding
    expected.insert(expected.end(), C, v == 6 ? 0 : static_cast<double>((N - v + V - 1) / V));
  require_values(w.grad(), expected);
}

TEST_CASE("embedding: a forward over many chunks of rows gives each position its weight row, contiguous or strided") {
  // 3000 positions of width 100: 18 of the forward's chunks of 163 rows and part of one more.
  const int64_t N = 3000, V = 11, C = 100;
  std::vector<int64_t> ids(N);
  for (int64_t n = 0; n < N; ++n) ids[n] = n * 7 % V;
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype_name(dtype));
    const Tensor w = to_dtype_copy(rand64({V, C}, 3), dtype);
    const Tensor strided = transpose(contiguous_copy(transpose(w, 0, 1)), 0, 1);  // w's values, columns V apart
    const std::vector<double> table = to_dtype_copy(w, kF64).to_vector<double>();
    for (const Tensor& weight : {w, strided}) {
      const std::vector<double> out = to_dtype_copy(embedding(tensor_i64(ids), weight), kF64).to_vector<double>();
      int64_t wrong = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) wrong += out[n * C + c] != table[ids[n] * C + c];
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("embedding: each row of the gradient adds its positions' rows in order, bit for bit") {
  // C = 100: a block of columns summed in registers and a remainder, in float32 and float64;
  // 2048 positions over 5 rows (row 2 padding); backward twice, the second's gradient added to
  // the first's.
  const int64_t N = 2048, V = 5, C = 100, padding = 2;
  std::vector<int64_t> ids(N);
  for (int64_t n = 0; n < N; ++n) ids[n] = (n * n + 3 * n) % V;
  for (DType dtype : {kF32, kF64}) {
    CAPTURE(dtype);
    Generator gen(3);
    Tensor w = randn({V, C}, dtype, kCPU, gen).requires_grad_();
    const Tensor g = randn({N, C}, dtype, kCPU, gen), idx = tensor_i64(ids);
    for (int pass = 0; pass < 2; ++pass) embedding(idx, w, padding).backward(g);
    Tensor once = zeros({V, C}, dtype);  // one backward's rows, added in order
    dispatch_floating(dtype, "test", [&](auto zero) {
      using T = decltype(zero);
      T* e = once.data<T>();
      for (int64_t n = 0; n < N; ++n) {
        if (ids[n] == padding) continue;
        for (int64_t c = 0; c < C; ++c) e[ids[n] * C + c] += g.data<T>()[n * C + c];
      }
    });
    require_close(w.grad(), add(once, once), 0, 0);
  }
}

TEST_CASE("embedding: padding_idx row gets no gradient") {
  Tensor w = table(kF64).requires_grad_();
  Tensor idx = tensor_i64({0, 2, 0, 3});
  Tensor out = embedding(idx, w, 0);
  require_values(out, {1, 2, 3, 21, 22, 23, 1, 2, 3, 31, 32, 33});  // forward still reads row 0
  sum(out).backward();
  require_values(w.grad(), {0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1});
}

TEST_CASE("gradcheck embedding") {
  // The weight is the differentiable input; the indices are fixed.
  auto with = [](Tensor idx, int64_t padding_idx = -1) {
    return [idx, padding_idx](const std::vector<Tensor>& in) { return embedding(idx, in[0], padding_idx); };
  };
  require_gradcheck("embedding", with(tensor_i64({2, 0, 2, 4, 2})), {rand64({5, 3}, 1)});
  // A padding row's gradient is 0 by decree, not its true derivative, so here padding_idx names
  // an unused row (the padding test above checks the decree); the other rows must be unaffected.
  require_gradcheck("embedding", with(tensor_i64({1, 0, 2, 1, 1, 2}, {2, 3}), 3), {rand64({4, 2}, 2)});
  require_gradcheck("embedding", with(full({}, 3, kI64)), {rand64({4, 3}, 3)});
  require_gradcheck("embedding", with(tensor_i64({0, 3, 3, 1}, {2, 1, 2})), {noncontig64({4, 3}, 4)});
  // A broadcast (stride-0) incoming gradient: embedding feeding a sum.
  auto summed = [](const std::vector<Tensor>& in) { return sum(embedding(tensor_i64({1, 1, 0}), in[0])); };
  require_gradcheck("embedding", summed, {rand64({2, 3}, 5)});
}

TEST_CASE("embedding: float32 matches float64") {
  Generator gen(7);
  Tensor w64 = randn({6, 4}, kF64, kCPU, gen).requires_grad_();
  Tensor w32 = to_dtype_copy(w64, kF32).requires_grad_();
  Tensor idx = tensor_i64({5, 0, 5, 2, 3, 5}, {3, 2});
  Tensor v = randn({3, 2, 4}, kF64, kCPU, gen);
  Tensor out64 = embedding(idx, w64, 3), out32 = embedding(idx, w32, 3);
  CHECK(out32.dtype() == kF32);
  require_close(out32, out64, 1e-6);
  out64.backward(v);
  out32.backward(to_dtype_copy(v, kF32));
  CHECK(w32.grad().dtype() == kF32);
  require_close(w32.grad(), w64.grad(), 1e-5);
}

TEST_CASE("embedding: errors") {
  Tensor w = zeros({10, 4});
  Tensor idx = zeros({2, 4}, kI64);
  idx.data<int64_t>()[7] = 12;  // position (1,3)
  CHECK_THROWS_WITH_AS(embedding(idx, w), "embedding: index 12 at position (1,3) is out of range for weight (10,4)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0, -1}), w),
                       "embedding: index -1 at position (1) is out of range for weight (10,4)", tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor({0, 1}), w), "embedding: index must be int64, got float32 (2,)", tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0}), w, 10),
                       "embedding: padding_idx 10 is out of range for weight (10,4) (expected -1 for none, or 0..9)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0}), w, -2), doctest::Contains("embedding: padding_idx -2"), tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0}), zeros({10})), "embedding: weight must be 2-D (V, C), got (10,)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0}), zeros({10, 4}, kI64)),
                       doctest::Contains("embedding: argument 'weight'"), tg::Error);
}

TEST_CASE("embedding: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  // The indices are an input, so that they move to the GPU with the weight.
  auto with = [](int64_t padding_idx) {
    return [padding_idx](const std::vector<Tensor>& in) { return embedding(in[0], in[1], padding_idx); };
  };
  require_cuda_matches_cpu_with_grads("embedding repeated indices (5) weight (5,3)", with(-1),
                                      {tensor_i64({2, 0, 2, 4, 2}), rand64({5, 3}, 1)});
  require_cuda_matches_cpu_with_grads("embedding padding_idx 1, indices (2,3)", with(1),
                                      {tensor_i64({1, 0, 2, 1, 1, 2}, {2, 3}), rand64({4, 2}, 2)});
  require_cuda_matches_cpu_with_grads("embedding 0-d index", with(-1), {full({}, 3, kI64), rand64({4, 3}, 3)});
  require_cuda_matches_cpu_with_grads("embedding non-contiguous weight (4,3) and indices (3,2)", with(-1),
                                      {make_view(tensor_i64({0, 1, 2, 3, 0, 1}, {2, 3}), {3, 2}, {1, 3}, 0),
                                       noncontig64({4, 3}, 4)});
  // Many positions hitting few rows: the atomicAdds on one row collide, and float32 sums of
  // 585 terms in another order differ from the CPU's by more than a few ulps.
  std::vector<int64_t> ids(4096);
  for (size_t n = 0; n < ids.size(); ++n) ids[n] = static_cast<int64_t>(n % 7);
  require_cuda_matches_cpu_with_grads("embedding 4096 positions into 7 rows, padding_idx 6", with(6),
                                      {tensor_i64(ids), rand64({7, 16}, 5)}, 1e-3, 1e-5);
}

TEST_CASE("embedding: f64 gradcheck on the GPU, indices checked on the host, device errors") {
  if (!gpu_available_or_skip()) return;
  const Device gpu = Device::cuda();
  require_gradcheck("embedding", [](const std::vector<Tensor>& in) { return embedding(in[0], in[1], 3); },
                    on_gpu({tensor_i64({1, 0, 2, 1, 1, 2}, {2, 3}), rand64({4, 2}, 6)}));
  Tensor w = zeros({10, 4}, kF32, gpu);
  Tensor idx = zeros({2, 4}, kI64);
  idx.data<int64_t>()[7] = 12;  // position (1,3)
  CHECK_THROWS_WITH_AS(embedding(to_device_copy(idx, gpu), w),
                       "embedding: index 12 at position (1,3) is out of range for weight (10,4)", tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0}), w),
                       "embedding: tensors are on different devices: (1,) on cpu and (10,4) on cuda:0", tg::Error);
  CHECK_THROWS_WITH_AS(embedding(tensor_i64({0}, {1}, gpu), zeros({3, 2})),
                       "embedding: tensors are on different devices: (1,) on cuda:0 and (3,2) on cpu", tg::Error);
}

TEST_CASE("embedding: second order, forward mode and the reference rule, with and without padding_idx") {
  const Tensor idx = tensor_i64({2, 0, 2, 4, 1, 2}, {2, 3});
  for (int64_t padding_idx : {-1, 2}) {
    CAPTURE(padding_idx);
    const GradcheckFn fn = [&](const std::vector<Tensor>& in) { return embedding(idx, in[0], padding_idx); };
    require_second_order(fn, {rand64({5, 3}, 1)});
    require_reference_matches_fast(fn, {noncontig64({5, 3}, 2)});
  }
  const GradcheckFn plain = [&](const std::vector<Tensor>& in) { return embedding(idx, in[0]); };
  require_forward_mode(plain, {noncontig64({5, 3}, 3)});
}

TEST_CASE("embedding: in forward mode the padding_idx row is held constant, as in the backward") {
  const Tensor idx = tensor_i64({1, 0, 1});
  const Tensor w = rand64({2, 2}, 1).detach(), t = tensor({1, 2, 3, 4}, {2, 2}, kF64);
  const auto [outs, tangents] =
      jvp([&](const TensorList& in) { return TensorList{embedding(idx, in[0], 0)}; }, {w}, {t});
  require_values(reshape(tangents[0], {6}), {3, 4, 0, 0, 3, 4});
}
