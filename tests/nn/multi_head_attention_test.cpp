#include <algorithm>
#include <cmath>
#include <limits>

#include "nn_test_util.h"
#include "ops/mul/mul.h"

using namespace tg;
using namespace tg::test;

namespace {

Tensor plain64(const Shape& shape, uint64_t seed) { return rand64(shape, seed).detach(); }

// f64 attention with random parameters (non-zero biases), in eval mode unless told otherwise.
struct Fixture {
  nn::MultiHeadAttention mha;
  Fixture(int64_t E, int64_t NH, double dropout = 0) : mha(E, NH, dropout) {
    mha.to_(kF64);
    randomize_parameters(mha, 77);
    mha.eval();
  }
  Tensor out(const Tensor& q, const Tensor& k, const Tensor& v, const nn::MhaOptions& o = {}) {
    return mha.forward(q, k, v, o).output;
  }
};

// An independent oracle for the head split: each head h computed on its own from rows
// [h*hs, (h+1)*hs) of the projection weights, the heads concatenated along the features.
std::pair<Tensor, std::vector<Tensor>> per_head_reference(const nn::MultiHeadAttention& m, const Tensor& query,
                                                          const Tensor& key, const Tensor& value) {
  const int64_t hs = m.head_size;
  auto project = [&](const nn::Linear& lin, const Tensor& x, int64_t h) {
    Tensor w = slice(lin.weight, 0, h * hs, (h + 1) * hs), b = slice(lin.bias, 0, h * hs, (h + 1) * hs);
    return add(matmul(x, transpose(w, 0, 1)), b);  // (B,L,hs)
  };
  std::vector<Tensor> outs, probs;
  for (int64_t h = 0; h < m.num_heads; ++h) {
    Tensor qh = project(*m.q_proj, query, h), kh = project(*m.k_proj, key, h), vh = project(*m.v_proj, value, h);
    Tensor p = softmax(mul(matmul(qh, transpose(kh, 1, 2)), 1 / std::sqrt(static_cast<double>(hs))), -1);
    probs.push_back(p);               // (B,T,S)
    outs.push_back(matmul(p, vh));    // (B,T,hs)
  }
  return {m.out_proj->forward(cat(outs, -1)), probs};
}

}  // namespace

TEST_CASE("nn::MultiHeadAttention: names, shapes, and the per-head oracle") {
  Fixture f(6, 3);
  CHECK(names_of(f.mha.state_dict()) ==
        std::vector<std::string>{"q_proj.weight", "q_proj.bias", "k_proj.weight", "k_proj.bias", "v_proj.weight",
                                 "v_proj.bias", "out_proj.weight", "out_proj.bias"});
  Tensor q = plain64({2, 3, 6}, 1), k = plain64({2, 5, 6}, 2), v = plain64({2, 5, 6}, 3);
  nn::MhaResult r = f.mha.forward(q, k, v, {.need_weights = true});
  CHECK(r.output.shape() == Shape{2, 3, 6});
  REQUIRE(r.weights.shape() == Shape{2, 3, 3, 5});
  REQUIRE(r.mean_weights.shape() == Shape{2, 3, 5});
  auto [expected, probs] = per_head_reference(f.mha, q, k, v);
  require_close(r.output, expected, 1e-12, 1e-12);
  for (int64_t h = 0; h < 3; ++h)
    require_close(reshape(slice(r.weights, 1, h, h + 1), {2, 3, 5}), probs[h], 1e-12, 1e-12);
  require_close(r.mean_weights, mul(add(add(probs[0], probs[1]), probs[2]), 1.0 / 3), 1e-12, 1e-12);
  CHECK_FALSE(f.mha.forward(q, k, v).weights.defined());
}

TEST_CASE("nn::MultiHeadAttention: masked keys change nothing, unmasked ones do") {
  Fixture f(4, 2);
  const int64_t B = 2, T = 3, S = 4;
  Tensor q = plain64({B, T, 4}, 1), k = plain64({B, S, 4}, 2), v = plain64({B, S, 4}, 3);
  // k, v with key s of batch b replaced by other values.
  auto change_key = [&](int64_t b, int64_t s) {
    Tensor k2 = contiguous_copy(k), v2 = contiguous_copy(v);
    fill_(slice(slice(k2, 0, b, b + 1), 1, s, s + 1), 5);
    fill_(slice(slice(v2, 0, b, b + 1), 1, s, s + 1), -5);
    return std::pair{k2, v2};
  };
  // The output rows of batch b, queries [t0, t1).
  auto rows = [](const Tensor& out, int64_t b, int64_t t0, int64_t t1) {
    return slice(slice(out, 0, b, b + 1), 1, t0, t1);
  };

  SUBCASE("key_padding_mask") {
    nn::MhaOptions o{.key_padding_mask = tensor_bool({false, false, false, false, false, false, true, true}, {B, S})};
    Tensor base = f.out(q, k, v, o);
    auto [k2, v2] = change_key(1, 3);
    CHECK(max_abs_diff(f.out(q, k2, v2, o), base) == 0);
    auto [k3, v3] = change_key(1, 1);
    CHECK(max_abs_diff(rows(f.out(q, k3, v3, o), 1, 0, T), rows(base, 1, 0, T)) > 1e-3);
  }
  SUBCASE("attn_mask (T,S): query 0 sees key 0 only, key 2 is hidden from everyone") {
    Tensor mask = tensor_bool({false, true, true, true, false, false, true, false, false, false, true, false}, {T, S});
    nn::MhaOptions o{.attn_mask = mask};
    Tensor base = f.out(q, k, v, o);
    auto [k2, v2] = change_key(0, 2);
    CHECK(max_abs_diff(f.out(q, k2, v2, o), base) == 0);
    auto [k3, v3] = change_key(0, 1);
    Tensor changed = f.out(q, k3, v3, o);
    CHECK(max_abs_diff(rows(changed, 0, 0, 1), rows(base, 0, 0, 1)) == 0);
    CHECK(max_abs_diff(rows(changed, 0, 1, T), rows(base, 0, 1, T)) > 1e-3);
    // additive_mask with -inf where attn_mask is true: the same attention.
    Tensor additive = masked_fill(zeros({T, S}, kF64), mask, -std::numeric_limits<double>::infinity());
    require_close(f.out(q, k, v, {.additive_mask = additive}), base, 1e-12, 1e-12);
  }
  SUBCASE("is_causal: a later key changes only the queries at or after it") {
    Tensor qs = plain64({B, S, 4}, 4);
    Tensor base = f.out(qs, k, v, {.is_causal = true});
    auto [k2, v2] = change_key(1, 2);
    Tensor changed = f.out(qs, k2, v2, {.is_causal = true});
    CHECK(max_abs_diff(rows(changed, 1, 0, 2), rows(base, 1, 0, 2)) == 0);
    CHECK(max_abs_diff(rows(changed, 1, 2, S), rows(base, 1, 2, S)) > 1e-3);
    CHECK(max_abs_diff(rows(changed, 0, 0, S), rows(base, 0, 0, S)) == 0);
  }
  SUBCASE("a per-head mask (B,NH,T,S) and PyTorch's (B*NH,T,S) layout agree") {
    Tensor mask = rand({B, 2, T, S}, kF64, kCPU, default_generator()).detach();
    std::vector<bool> bits;
    for (double x : mask.to_vector<double>()) bits.push_back(x > 0.6);
    Tensor per_head = tensor_bool(bits, {B, 2, T, S});
    Tensor base = f.out(q, k, v, {.attn_mask = per_head});
    CHECK(max_abs_diff(f.out(q, k, v, {.attn_mask = reshape(per_head, {B * 2, T, S})}), base) == 0);
    CHECK(max_abs_diff(f.out(q, k, v), base) > 1e-3);
  }
}

TEST_CASE("nn::MultiHeadAttention: a fully padded sequence gives no NaN, in forward or backward") {
  Fixture f(4, 2);
  Tensor x = rand64({2, 3, 4}, 5);
  nn::MhaOptions o{.key_padding_mask = tensor_bool({false, false, true, true, true, true}, {2, 3})};
  Tensor y = f.mha.forward(x, x, x, o).output;
  // Batch 1 attends to nothing: its output is out_proj's bias, in every row.
  std::vector<double> out = y.to_vector<double>(), bias = f.mha.out_proj->bias.to_vector<double>();
  for (int64_t t = 0; t < 3; ++t)
    for (int64_t c = 0; c < 4; ++c) CHECK(out[(3 + t) * 4 + c] == doctest::Approx(bias[c]).epsilon(1e-12));
  sum(y).backward();
  CHECK(all_finite(x.grad()));
  for (const Tensor& p : f.mha.parameters()) CHECK(all_finite(p.grad()));
}

TEST_CASE("nn::MultiHeadAttention: gradcheck with each mask kind") {
  Fixture f(4, 2);
  Tensor q = rand64({2, 3, 4}, 1), k = rand64({2, 4, 4}, 2), v = rand64({2, 4, 4}, 3);
  auto check = [&](const nn::MhaOptions& o, std::vector<Tensor> inputs) {
    require_module_gradcheck(f.mha, inputs, [&](const std::vector<Tensor>& in) {
      nn::MhaOptions with = o;
      if (in.size() == 4) with.additive_mask = in[3];
      return f.mha.forward(in[0], in[1], in[2], with).output;
    });
  };
  SUBCASE("none") { check({}, {q, k, v}); }
  SUBCASE("attn_mask") {
    check({.attn_mask = tensor_bool({false, true, false, false, true, false, false, true, false, false, true, false},
                                    {3, 4})}, {q, k, v});
  }
  SUBCASE("additive_mask (and its gradient)") { check({}, {q, k, v, rand64({3, 4}, 4)}); }
  SUBCASE("key_padding_mask") {
    check({.key_padding_mask = tensor_bool({false, false, false, true, false, true, true, true}, {2, 4})}, {q, k, v});
  }
  SUBCASE("is_causal, self-attention") {
    Tensor x = rand64({2, 3, 4}, 5);
    require_module_gradcheck(f.mha, {x}, [&](const std::vector<Tensor>& in) {
      return f.mha.forward(in[0], in[0], in[0], {.is_causal = true}).output;
    });
  }
}

TEST_CASE("nn::MultiHeadAttention: attention dropout only in training") {
  Fixture f(4, 2, /*dropout=*/0.5);
  Tensor x = plain64({2, 3, 4}, 6);
  Tensor eval_out = f.out(x, x, x);
  CHECK(max_abs_diff(f.out(x, x, x), eval_out) == 0);
  f.mha.train();
  CHECK(max_abs_diff(f.out(x, x, x), eval_out) > 1e-3);
}

TEST_CASE("nn::MultiHeadAttention: errors") {
  CHECK_THROWS_WITH_AS(nn::MultiHeadAttention(6, 4),
                       doctest::Contains("MultiHeadAttention: num_heads must be positive and divide d_model, got "
                                         "d_model=6 num_heads=4"), tg::Error);
  nn::MultiHeadAttention mha(4, 2);
  Tensor x = zeros({2, 3, 4});
  CHECK_THROWS_WITH_AS(mha.forward(zeros({2, 3, 5}), x, x),
                       doctest::Contains("MultiHeadAttention: expected query (B,T,4), key and value (B,S,4), got "
                                         "query (2,3,5)"), tg::Error);
  CHECK_THROWS_WITH_AS(mha.forward(x, zeros({2, 5, 4}), x), doctest::Contains("key (2,5,4) value (2,3,4)"), tg::Error);
  CHECK_THROWS_WITH_AS(mha.forward(x, x, x, {.attn_mask = zeros({3, 3, 3}, kBool)}),
                       doctest::Contains("MultiHeadAttention: attn_mask (3,3,3) does not broadcast to the scores "
                                         "(B,NH,T,S) = (2,2,3,3)"), tg::Error);
  CHECK_THROWS_WITH_AS(mha.forward(x, x, x, {.attn_mask = zeros({3, 3})}),
                       doctest::Contains("attn_mask must be bool"), tg::Error);
}

TEST_CASE("nn::MultiHeadAttention: the fused path (default) and the composed one agree, dropout included") {
  Fixture f(8, 2, /*dropout=*/0.2);
  f.mha.train();
  const Tensor x = plain64({2, 5, 8}, 7);
  const nn::MhaOptions masks{.key_padding_mask = padding_mask({5, 3}, 5), .is_causal = true};
  // Output, input gradient and parameter gradients of one step, with the op names on the tape.
  auto step = [&](bool fused) {
    tape().clear();
    Tensor in = x.detach().requires_grad_();
    f.mha.zero_grad();
    manual_seed(11);  // the same dropout draw for both paths
    nn::MhaOptions o = masks;
    o.fused = fused;
    Tensor out = f.mha.forward(in, in, in, o).output;
    std::vector<std::string> ops;
    for (const auto& e : tape().entries()) ops.push_back(e->op);
    sum(mul(out, out)).backward();
    std::vector<Tensor> results{out, in.grad()};
    for (const Tensor& p : f.mha.parameters()) results.push_back(p.grad());
    return std::pair{results, ops};
  };
  auto [fused, fused_ops] = step(true);
  auto [composed, composed_ops] = step(false);
  auto has = [](const std::vector<std::string>& ops, const std::string& op) {
    return std::find(ops.begin(), ops.end(), op) != ops.end();
  };
  CHECK(has(fused_ops, "fused_attention"));
  CHECK_FALSE(has(fused_ops, "softmax"));
  CHECK(has(composed_ops, "softmax"));
  CHECK_FALSE(has(composed_ops, "fused_attention"));
  REQUIRE(fused.size() == composed.size());
  for (size_t i = 0; i < fused.size(); ++i) {
    INFO("result ", i);
    require_close(fused[i], composed[i], 1e-12, 1e-12);
  }
  tape().clear();
}
