#include <vector>

#include "cuda_parity_test_util.h"
#include "elementwise_test_util.h"
#include "ops/add/add.h"
#include "ops/embedding/embedding.h"
#include "ops/fused/embedding_add_positions/embedding_add_positions.h"
#include "ops/slice/slice.h"

using namespace tg;
using namespace tg::test;

namespace {

// indices (shape) in [0, V), from a fixed pattern.
Tensor indices_of(const Shape& shape, int64_t V, uint64_t seed) {
  std::vector<int64_t> ids(static_cast<size_t>(numel(shape)));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7 + seed * 13 + i * i) % V);
  return tensor_i64(ids, shape);
}

}  // namespace

TEST_CASE("embedding_add_positions: hand-worked forward and backward") {
  // indices (2,3), weight (3,2), positions (4,2): P = 4 > T = 3, so row 3 gets no gradient.
  // out[i, t] = weight[indices[i, t]] + positions[t]; from g = 1, dweight[v] counts v's uses,
  // dpositions[t] = 2 (two sequences) for t < 3.
  const Tensor indices = tensor_i64({1, 0, 1, 2, 1, 0}, {2, 3});
  Tensor weight = tensor({1, 2, 3, 4, 5, 6}, {3, 2}, kF64).requires_grad_();
  Tensor positions = tensor({0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8}, {4, 2}, kF64).requires_grad_();
  Tensor out = embedding_add_positions(indices, weight, positions);
  CHECK(out.producer()->op == "embedding_add_positions");
  require_values(out, {3.1, 4.2, 1.3, 2.4, 3.5, 4.6, 5.1, 6.2, 3.3, 4.4, 1.5, 2.6}, 1e-12);
  out.backward(full({2, 3, 2}, 1.0, kF64));
  require_values(weight.grad(), {2, 2, 3, 3, 1, 1}, 0);
  require_values(positions.grad(), {2, 2, 2, 2, 2, 2, 0, 0}, 0);
}

TEST_CASE("embedding_add_positions: the values and gradients of embedding, slice and add, exactly") {
  // float32 and float64 on the parallel kernels, ragged shapes with a padding row, strided tables
  // and a table that needs no gradient (a sinusoidal encoding's)
  struct Case {
    const char* what;
    Tensor indices, weight, positions;
    int64_t padding_idx;
    bool positions_grad;
  };
  const std::vector<Case> cases{
      {"(16,64) of 100 x 128: the parallel kernels", indices_of({16, 64}, 100, 1), rand64({100, 128}, 2),
       rand64({64, 128}, 3), -1, true},
      {"(3,5,7) of 11 x 13, P 9, padding 4", indices_of({3, 5, 7}, 11, 4), rand64({11, 13}, 5), rand64({9, 13}, 6), 4,
       true},
      {"strided weight and positions", indices_of({4, 6}, 8, 7), noncontig64({8, 5}, 8), noncontig64({6, 5}, 9), -1,
       true},
      {"positions needing no gradient", indices_of({2, 300}, 50, 10), rand64({50, 128}, 11), rand64({300, 128}, 12),
       -1, false}};
  for (const Case& c : cases)
    for (DType dtype : {kF32, kF64}) {
      CAPTURE(c.what);
      CAPTURE(dtype_name(dtype));
      const int64_t T = c.indices.size(-1);
      auto leaf = [&](const Tensor& t, bool grad) {
        Tensor copy = copy_keeping_strides(t.detach(), dtype, kCPU);
        return grad ? copy.requires_grad_() : copy;
      };
      const Tensor w1 = leaf(c.weight, true), p1 = leaf(c.positions, c.positions_grad);
      const Tensor w2 = leaf(c.weight, true), p2 = leaf(c.positions, c.positions_grad);
      const Tensor fused = embedding_add_positions(c.indices, w1, p1, c.padding_idx);
      const Tensor three = add(embedding(c.indices, w2, c.padding_idx), slice(p2, 0, 0, T));
      CHECK(fused.producer()->op == "embedding_add_positions");
      require_close(fused, three, 0, 0);
      const Tensor g = to_dtype_copy(rand64(fused.shape(), 13).detach(), dtype);
      fused.backward(g);
      three.backward(g);
      require_close(w1.grad(), w2.grad(), 0, 0);
      if (c.positions_grad) require_close(p1.grad(), p2.grad(), 0, 0);
    }
}

TEST_CASE("embedding_add_positions: no sequence, sequences of length 0, or rows of width 0") {
  struct Case {
    Shape indices;
    int64_t C;
  };
  for (const Case& c : {Case{{0, 3}, 2}, Case{{2, 0}, 2}, Case{{2, 3}, 0}}) {
    CAPTURE(shape_str(c.indices));
    CAPTURE(c.C);
    Tensor weight = rand64({4, c.C}, 1).detach().requires_grad_();
    Tensor positions = rand64({3, c.C}, 2).detach().requires_grad_();
    Tensor out = embedding_add_positions(zeros(c.indices, kI64), weight, positions);
    CHECK(out.shape() == Shape{c.indices[0], c.indices[1], c.C});
    out.backward(zeros(out.shape(), kF64));
    require_values(weight.grad(), std::vector<double>(static_cast<size_t>(4 * c.C), 0.0), 0);
    require_values(positions.grad(), std::vector<double>(static_cast<size_t>(3 * c.C), 0.0), 0);
  }
}

TEST_CASE("gradcheck embedding_add_positions") {
  const Tensor indices = tensor_i64({1, 4, 1, 0, 2, 1, 3, 3}, {2, 4});
  auto fn = [&](const std::vector<Tensor>& in) { return embedding_add_positions(indices, in[0], in[1]); };
  require_gradcheck("embedding_add_positions", fn, {rand64({5, 3}, 1), rand64({6, 3}, 2)});
  // (padding_idx holds its row constant, so differences there would not be the gradient: the
  // padding row is checked against embedding's above)
  require_gradcheck("embedding_add_positions", fn, {noncontig64({5, 3}, 3), noncontig64({4, 3}, 4)});
}

TEST_CASE("embedding_add_positions: errors name the op, the argument and the limit") {
  const Tensor ids = tensor_i64({0, 1, 2}, {1, 3});
  CHECK_THROWS_WITH_AS(embedding_add_positions(ids, ones({3, 4}), ones({2, 4})),
                       "embedding_add_positions: expected indices (..., T), weight (V, C) and positions (P, C) with "
                       "P >= T, got indices (1,3) weight (3,4) positions (2,4)",
                       Error);
  CHECK_THROWS_WITH_AS(embedding_add_positions(ids, ones({3, 4}), ones({3, 5})),
                       doctest::Contains("embedding_add_positions: expected indices (..., T)"), Error);
  CHECK_THROWS_WITH_AS(embedding_add_positions(tensor_i64({0, 3}, {1, 2}), ones({3, 4}), ones({2, 4})),
                       doctest::Contains("embedding_add_positions: index 3 at position (0,1) is out of range"), Error);
  CHECK_THROWS_WITH_AS(embedding_add_positions(ids, ones({3, 4}), ones({3, 4}, kF64)),
                       doctest::Contains("embedding_add_positions"), Error);
  CHECK_THROWS_WITH_AS(embedding_add_positions(ids, ones({3, 4}), ones({3, 4}), 3),
                       doctest::Contains("embedding_add_positions: padding_idx 3 is out of range"), Error);
  CHECK_THROWS_WITH_AS(embedding_add_positions(tensor_i64({0}, {}), ones({3, 4}), ones({3, 4})),
                       doctest::Contains("embedding_add_positions"), Error);
}

TEST_CASE("embedding_add_positions: CUDA matches CPU (forward and backward)") {
  const std::vector<Tensor> inputs{rand64({7, 3}, 2), noncontig64({5, 3}, 3)};
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    return embedding_add_positions(tensor_i64({1, 4, 1, 6, 2, 1, 0, 5}, {2, 4}, in[0].device()), in[0], in[1], 2);
  };
  require_cuda_matches_cpu_with_grads("embedding_add_positions (2,4) of (7,3), P 5, padding 2", fn, inputs);
}
