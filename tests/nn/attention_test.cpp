#include <cmath>
#include <functional>
#include <limits>

#include "nn/attention.h"
#include "ops/cuda_parity_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// An independent oracle: attention with plain loops over (B, T, S, hs) in double.
// masked(b, i, j) says whether key j is hidden from query i of batch b.
template <class Masked>
std::vector<double> reference_attention(const Tensor& q, const Tensor& k, const Tensor& v, double scale, Masked masked) {
  const int64_t B = q.size(0), T = q.size(1), S = k.size(1), H = q.size(2), V = v.size(2);
  auto Q = to_dtype_copy(q, kF64).to_vector<double>(), K = to_dtype_copy(k, kF64).to_vector<double>(),
       Vv = to_dtype_copy(v, kF64).to_vector<double>();
  std::vector<double> out(B * T * V, 0.0);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < T; ++i) {
      std::vector<double> s(S);
      double mx = -INFINITY;
      for (int64_t j = 0; j < S; ++j) {
        s[j] = 0;
        for (int64_t h = 0; h < H; ++h) s[j] += Q[(b * T + i) * H + h] * K[(b * S + j) * H + h];
        s[j] = masked(b, i, j) ? -INFINITY : s[j] * scale;
        mx = std::max(mx, s[j]);
      }
      if (mx == -INFINITY) continue;  // every key masked: zeros
      double z = 0;
      for (int64_t j = 0; j < S; ++j) z += s[j] = std::exp(s[j] - mx);
      for (int64_t j = 0; j < S; ++j)
        for (int64_t c = 0; c < V; ++c) out[(b * T + i) * V + c] += s[j] / z * Vv[(b * S + j) * V + c];
    }
  return out;
}

Tensor plain64(const Shape& shape, uint64_t seed) { return rand64(shape, seed).detach(); }

}  // namespace

TEST_CASE("attention: hand-worked forward") {
  // One query, two keys, head dim 1: scores = q*k/sqrt(1) = [0, 1*ln3] -> weights [1/4, 3/4].
  Tensor q = tensor({1}, {1, 1, 1}, kF64), k = tensor({0, std::log(3.0)}, {1, 2, 1}, kF64);
  Tensor v = tensor({4, 8}, {1, 2, 1}, kF64);
  AttentionOptions opts;
  opts.need_weights = true;
  AttentionResult r = scaled_dot_product_attention(q, k, v, opts);
  require_values(r.weights, {0.25, 0.75}, 1e-12);
  require_values(r.output, {0.25 * 4 + 0.75 * 8}, 1e-12);
}

TEST_CASE("attention: matches a loop reference with every mask kind") {
  Tensor q = plain64({2, 3, 4}, 1), k = plain64({2, 5, 4}, 2), v = plain64({2, 5, 3}, 3);
  const double scale = 1 / std::sqrt(4.0);
  SUBCASE("no mask") {
    require_close(scaled_dot_product_attention(q, k, v).output,
                  tensor(reference_attention(q, k, v, scale, [](auto, auto, auto) { return false; }), {2, 3, 3}, kF64));
  }
  SUBCASE("causal") {
    AttentionOptions o;
    o.is_causal = true;
    require_close(scaled_dot_product_attention(q, k, v, o).output,
                  tensor(reference_attention(q, k, v, scale, [](auto, int64_t i, int64_t j) { return j > i; }), {2, 3, 3}, kF64));
  }
  SUBCASE("key padding + bool mask + causal together") {
    AttentionOptions o;
    o.key_padding_mask = padding_mask({5, 2}, 5);
    o.attn_mask = tensor_bool({false, false, false, true, false, false, false, false, false, false, false, false, false, false, false},
                              {3, 5});
    o.is_causal = true;
    auto masked = [](int64_t b, int64_t i, int64_t j) { return (b == 1 && j >= 2) || (i == 0 && j == 3) || j > i; };
    require_close(scaled_dot_product_attention(q, k, v, o).output,
                  tensor(reference_attention(q, k, v, scale, masked), {2, 3, 3}, kF64));
  }
  SUBCASE("additive mask equals a bool mask of -inf") {
    AttentionOptions bool_mask, additive;
    bool_mask.attn_mask = causal_mask(3, 5);
    std::vector<double> add_values(15);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 5; ++j) add_values[i * 5 + j] = j > i ? -INFINITY : 0;
    additive.additive_mask = tensor(add_values, {3, 5}, kF64);
    require_close(scaled_dot_product_attention(q, k, v, additive).output,
                  scaled_dot_product_attention(q, k, v, bool_mask).output, 1e-12);
  }
}

TEST_CASE("attention: masked keys and values change nothing") {
  Tensor q = plain64({1, 3, 4}, 1), k = plain64({1, 4, 4}, 2), v = plain64({1, 4, 2}, 3);
  AttentionOptions o;
  o.key_padding_mask = padding_mask({2}, 4);  // keys 2 and 3 are padding
  auto run = [&](const Tensor& kk, const Tensor& vv) {
    Tensor qq = q.detach().requires_grad_(), kl = kk.detach().requires_grad_(), vl = vv.detach().requires_grad_();
    Tensor out = scaled_dot_product_attention(qq, kl, vl, o).output;
    sum(out).backward();
    return std::vector<Tensor>{out, qq.grad(), narrow(kl.grad(), 1, 0, 2), narrow(vl.grad(), 1, 0, 2)};
  };
  std::vector<Tensor> base = run(k, v);
  // Overwrite the padded keys and values with something wild.
  Tensor k2 = contiguous_copy(k), v2 = contiguous_copy(v);
  fill_(narrow(k2, 1, 2, 2), 1e3);
  fill_(narrow(v2, 1, 2, 2), -7);
  std::vector<Tensor> changed = run(k2, v2);
  for (size_t i = 0; i < base.size(); ++i) require_close(changed[i], base[i], 0, 0);
}

TEST_CASE("attention: a fully padded query row gives zeros, no NaN, in output and gradients") {
  Tensor q = rand64({2, 3, 4}, 1), k = rand64({2, 3, 4}, 2), v = rand64({2, 3, 2}, 3);
  AttentionOptions o;
  o.key_padding_mask = padding_mask({3, 0}, 3);  // the second sequence has no real key
  Tensor out = scaled_dot_product_attention(q, k, v, o).output;
  sum(out).backward();
  require_close(narrow(out, 0, 1, 1), zeros({1, 3, 2}, kF64), 0, 0);
  CHECK(all_finite(out));
  CHECK(all_finite(q.grad()));
  CHECK(all_finite(k.grad()));
  CHECK(all_finite(v.grad()));
  require_close(narrow(q.grad(), 0, 1, 1), zeros({1, 3, 4}, kF64), 0, 0);
}

TEST_CASE("attention: the classic pitfalls give an error or the right result") {
  Tensor q = plain64({1, 2, 4}, 1), k = plain64({1, 3, 4}, 2), v = plain64({1, 3, 2}, 3);
  SUBCASE("a float 0/1 mask is rejected, not silently inverted") {
    AttentionOptions o;
    o.attn_mask = zeros({2, 3}, kF64);
    CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, k, v, o), doctest::Contains("attn_mask must be bool"), Error);
  }
  SUBCASE("the default scale is 1/sqrt(head_dim), not sqrt(head_dim) nor head_dim * 0.5") {
    AttentionOptions right, wrong_pow, wrong_half;
    right.scale = 1 / std::sqrt(4.0);
    wrong_pow.scale = std::sqrt(4.0);
    wrong_half.scale = 4 * 0.5;
    Tensor dflt = scaled_dot_product_attention(q, k, v).output;
    require_close(dflt, scaled_dot_product_attention(q, k, v, right).output, 1e-14, 0);
    // The wrong scales give visibly different results, so the check above can fail.
    CHECK_FALSE(std::abs(sum(dflt).item() - sum(scaled_dot_product_attention(q, k, v, wrong_pow).output).item()) < 1e-6);
    CHECK_FALSE(std::abs(sum(dflt).item() - sum(scaled_dot_product_attention(q, k, v, wrong_half).output).item()) < 1e-6);
    AttentionOptions bad;
    bad.scale = -1;
    CHECK_THROWS_AS(scaled_dot_product_attention(q, k, v, bad), Error);
  }
  SUBCASE("softmax runs over the keys: each query's weights sum to 1") {
    AttentionOptions o;
    o.need_weights = true;
    Tensor w = scaled_dot_product_attention(q, k, v, o).weights;  // (1, 2, 3)
    require_values(sum(w, {-1}), {1, 1}, 1e-12);
    CHECK(std::abs(sum(w, {-2}).to_vector<double>()[0] - 1) > 1e-6);  // not over the queries
  }
  SUBCASE("dropout is off in evaluation") {
    AttentionOptions eval;
    eval.dropout_p = 0.5;
    eval.training = false;
    require_close(scaled_dot_product_attention(q, k, v, eval).output, scaled_dot_product_attention(q, k, v).output, 0, 0);
    AttentionOptions train = eval;
    train.training = true;
    CHECK_FALSE(std::abs(sum(scaled_dot_product_attention(q, k, v, train).output).item() -
                         sum(scaled_dot_product_attention(q, k, v).output).item()) < 1e-9);
  }
  SUBCASE("shape errors name the op and the shapes") {
    CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, plain64({1, 3, 5}, 4), v),
                         doctest::Contains("scaled_dot_product_attention: q and k head dims differ"), Error);
    CHECK_THROWS_WITH_AS(scaled_dot_product_attention(q, k, plain64({1, 2, 2}, 4)),
                         doctest::Contains("k (1,3,4) v (1,2,2)"), Error);
  }
}

TEST_CASE("gradcheck attention") {
  auto with = [](AttentionOptions o) {
    return [o](const std::vector<Tensor>& in) { return scaled_dot_product_attention(in[0], in[1], in[2], o).output; };
  };
  // (B, NH, T, hs) with heads, as multi-head attention calls it.
  std::vector<Tensor> qkv = {rand64({2, 2, 3, 4}, 1), rand64({2, 2, 3, 4}, 2), rand64({2, 2, 3, 2}, 3)};
  require_gradcheck("softmax", with({}), qkv);
  AttentionOptions causal;
  causal.is_causal = true;
  require_gradcheck("masked_fill", with(causal), qkv);
  AttentionOptions padded;
  padded.key_padding_mask = padding_mask({3, 1}, 3);
  require_gradcheck("masked_fill", with(padded), qkv);
  AttentionOptions bool_mask;
  bool_mask.attn_mask = tensor_bool({false, true, false, false, false, true, false, false, false}, {3, 3});
  require_gradcheck("masked_fill", with(bool_mask), qkv);
  AttentionOptions additive;
  additive.additive_mask = plain64({3, 3}, 7);
  require_gradcheck("matmul", with(additive), qkv);
  AttentionOptions dropped;
  dropped.dropout_p = 0.3;
  dropped.training = true;
  require_gradcheck("dropout", [dropped](const std::vector<Tensor>& in) {
    Generator gen(42);  // the same dropout mask at every evaluation
    AttentionOptions o = dropped;
    o.generator = &gen;
    return scaled_dot_product_attention(in[0], in[1], in[2], o).output;
  }, qkv);
  // Non-contiguous q (a transposed view).
  require_gradcheck("matmul", with({}), {noncontig64({2, 4, 4}, 4), rand64({2, 3, 4}, 5), rand64({2, 3, 2}, 6)});
}

TEST_CASE("attention: float32 agrees with float64") {
  Tensor q = plain64({2, 3, 4}, 1), k = plain64({2, 3, 4}, 2), v = plain64({2, 3, 2}, 3);
  AttentionOptions o;
  o.is_causal = true;
  Tensor out64 = scaled_dot_product_attention(q, k, v, o).output;
  Tensor out32 = scaled_dot_product_attention(to_dtype_copy(q, kF32), to_dtype_copy(k, kF32), to_dtype_copy(v, kF32), o).output;
  CHECK(out32.dtype() == kF32);
  require_close(out32, out64, 1e-5, 1e-5);
}

TEST_CASE("attention: CUDA matches CPU with every mask kind (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  // q (2,3,4), k (2,5,4), v (2,5,3), then the masks the case uses (inputs, so that they move
  // to the GPU with q, k, v).
  const std::vector<Tensor> qkv = {rand64({2, 3, 4}, 1), rand64({2, 5, 4}, 2), rand64({2, 5, 3}, 3)};
  auto with = [&](std::vector<Tensor> masks) {
    std::vector<Tensor> all = qkv;
    all.insert(all.end(), masks.begin(), masks.end());
    return all;
  };
  using Options = std::function<AttentionOptions(const std::vector<Tensor>&)>;
  auto output_of = [](Options options) {
    return [options](const std::vector<Tensor>& in) {
      return scaled_dot_product_attention(in[0], in[1], in[2], options(in)).output;
    };
  };
  const Tensor attn = tensor_bool({false, false, false, true, false, false, true, false, false, false, false, false,
                                   false, false, true},
                                  {3, 5});
  require_cuda_matches_cpu_with_grads("attention no mask", output_of([](auto&) { return AttentionOptions{}; }), qkv);
  require_cuda_matches_cpu_with_grads("attention is_causal", output_of([](auto&) {
                                        AttentionOptions o;
                                        o.is_causal = true;
                                        return o;
                                      }),
                                      qkv);
  require_cuda_matches_cpu_with_grads("attention key_padding_mask lengths (5,2)", output_of([](auto& in) {
                                        AttentionOptions o;
                                        o.key_padding_mask = in[3];
                                        return o;
                                      }),
                                      with({padding_mask({5, 2}, 5)}));
  require_cuda_matches_cpu_with_grads("attention attn_mask (3,5)", output_of([](auto& in) {
                                        AttentionOptions o;
                                        o.attn_mask = in[3];
                                        return o;
                                      }),
                                      with({attn}));
  require_cuda_matches_cpu_with_grads("attention key padding + attn_mask + causal", output_of([](auto& in) {
                                        AttentionOptions o;
                                        o.attn_mask = in[3];
                                        o.key_padding_mask = in[4];
                                        o.is_causal = true;
                                        return o;
                                      }),
                                      with({attn, padding_mask({5, 2}, 5)}));
  // The second sequence has no real key: its queries get zeros and zero gradients.
  require_cuda_matches_cpu_with_grads("attention fully padded sequence", output_of([](auto& in) {
                                        AttentionOptions o;
                                        o.key_padding_mask = in[3];
                                        return o;
                                      }),
                                      with({padding_mask({5, 0}, 5)}));
  // An additive mask of the scores' full shape (a broadcast one needs sum on the GPU: below).
  std::vector<double> additive(2 * 3 * 5);
  for (size_t i = 0; i < additive.size(); ++i) additive[i] = i % 4 == 1 ? -INFINITY : 0.1 * static_cast<double>(i % 3);
  require_cuda_matches_cpu_with_grads("attention additive_mask (2,3,5)", output_of([](auto& in) {
                                        AttentionOptions o;
                                        o.additive_mask = in[3];
                                        return o;
                                      }),
                                      with({tensor(additive, {2, 3, 5}, kF64)}));
  // Dropout: the same generator state on both devices gives the same mask.
  require_cuda_matches_cpu_with_grads("attention dropout 0.3", [](const std::vector<Tensor>& in) {
    Generator gen(42);
    AttentionOptions o;
    o.dropout_p = 0.3;
    o.training = true;
    o.generator = &gen;
    return scaled_dot_product_attention(in[0], in[1], in[2], o).output;
  }, qkv);
  // Heads (B, NH, T, hs) = (2, 2, 3, 4) with key padding, and the weights themselves.
  const std::vector<Tensor> heads = {rand64({2, 2, 3, 4}, 4), rand64({2, 2, 3, 4}, 5), rand64({2, 2, 3, 2}, 6),
                                     padding_mask({3, 1}, 3)};
  auto weights = [](const std::vector<Tensor>& in) {
    AttentionOptions o;
    o.key_padding_mask = in[3];
    o.is_causal = true;
    o.need_weights = true;
    return scaled_dot_product_attention(in[0], in[1], in[2], o).weights;
  };
  require_cuda_matches_cpu_with_grads("attention heads (2,2,3,4) key padding + causal, weights", weights, heads);
}

TEST_CASE("attention: CUDA matches CPU with a broadcast additive mask (backward needs sum on the GPU)") {
  if (!gpu_available_or_skip()) return;
  // add's backward reduces the (2,3,5) gradient to the mask's (3,5) with sum: a CUDA sum kernel.
  std::vector<double> additive(15);
  for (size_t i = 0; i < additive.size(); ++i) additive[i] = i % 4 == 1 ? -INFINITY : 0.1 * static_cast<double>(i % 3);
  require_cuda_matches_cpu_with_grads("attention additive_mask (3,5) broadcast", [](const std::vector<Tensor>& in) {
    AttentionOptions o;
    o.additive_mask = in[3];
    return scaled_dot_product_attention(in[0], in[1], in[2], o).output;
  }, {rand64({2, 3, 4}, 1), rand64({2, 5, 4}, 2), rand64({2, 5, 3}, 3), tensor(additive, {3, 5}, kF64)});
}

TEST_CASE("attention: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  require_gradcheck("softmax", [](const std::vector<Tensor>& in) {
    AttentionOptions o;
    o.is_causal = true;
    o.key_padding_mask = in[3];
    return scaled_dot_product_attention(in[0], in[1], in[2], o).output;
  }, on_gpu({rand64({2, 3, 4}, 7), rand64({2, 3, 4}, 8), rand64({2, 3, 2}, 9), padding_mask({3, 1}, 3)}));
}

TEST_CASE("attention masks: causal_mask and padding_mask") {
  CHECK(causal_mask(3).to_vector<bool>() == std::vector<bool>{false, true, true, false, false, true, false, false, false});
  CHECK(padding_mask({1, 3}, 3).to_vector<bool>() == std::vector<bool>{false, true, true, false, false, false});
  CHECK_THROWS_AS(padding_mask({4}, 3), Error);
}
