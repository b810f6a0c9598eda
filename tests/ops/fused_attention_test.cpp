#include <omp.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "ops/fused/fused_attention/fused_attention.h"
#include "ops/fused/fused_attention/fused_attention_tiles.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

Tensor plain64(const Shape& shape, uint64_t seed) { return rand64(shape, seed).detach(); }

// The masks of every kind for scores (B,H,T,S) = (2,H,T,S): key padding with lengths (S, S-3),
// a bool attn_mask (T,S) hiding every 3rd score, an additive mask (B,1,T,S) with a -inf.
struct Masks {
  Tensor padding, attn, additive;
  Masks(int64_t T, int64_t S) {
    padding = padding_mask({S, S - 3}, S);
    std::vector<bool> hidden(T * S);
    for (int64_t e = 0; e < T * S; ++e) hidden[e] = e % 3 == 1;
    attn = tensor_bool(hidden, {T, S});
    additive = plain64({2, 1, T, S}, 9);
    fill_(slice(slice(additive, 2, 0, 1), 3, 1, 2), -INFINITY);
  }
};

// q, k, v as fresh leaves in `dtype`; the output and the gradients of q, k, v after a backward
// from a fixed random gradient. `o.generator` is replaced by a fresh Generator(42), so that the
// fused and the composed run draw the same dropout mask.
std::vector<Tensor> run(bool fused, const std::vector<Tensor>& qkv, DType dtype, AttentionOptions o) {
  std::vector<Tensor> in;
  for (const Tensor& t : qkv) in.push_back(to_dtype_copy(t, dtype).requires_grad_());
  if (o.additive_mask.defined()) o.additive_mask = to_dtype_copy(o.additive_mask, dtype);
  Generator gen(42);
  o.generator = &gen;
  Tensor out = fused ? fused_attention(in[0], in[1], in[2], o)
                     : scaled_dot_product_attention(in[0], in[1], in[2], o).output;
  Generator grad_gen(7);
  out.backward(to_dtype_copy(randn(out.shape(), kF64, kCPU, grad_gen), dtype));
  return {out, in[0].grad(), in[1].grad(), in[2].grad()};
}

void require_fused_matches_composed(const std::vector<Tensor>& qkv, const AttentionOptions& o) {
  for (DType dtype : {kF64, kF32}) {
    const double tol = dtype == kF64 ? 1e-12 : 2e-5;
    std::vector<Tensor> fused = run(true, qkv, dtype, o), composed = run(false, qkv, dtype, o);
    const char* what[] = {"output", "dq", "dk", "dv"};
    for (int i = 0; i < 4; ++i) {
      INFO(dtype_name(dtype), " ", what[i]);
      CHECK(fused[i].dtype() == dtype);
      require_close(fused[i], composed[i], tol, tol);
    }
  }
}

}  // namespace

TEST_CASE("fused_attention tiles: tile_gemm at every vector width this CPU runs agrees with a plain loop") {
  using namespace fused_attention_tiles;
  // c (11, width) = or += 1.5 a (11, 6) . b (6, width); a read row-major (a_rs = 9, a_ks = 1) and as
  // a transpose (a_rs = 1, a_ks = 13); b's rows 60 apart. 11 rows: one block and a tail at every
  // width. Width 53 and 29: two vectors, one and single columns at 8 and 16 lanes.
  std::vector<float> a(13 * 11), b(6 * 60);
  for (size_t e = 0; e < a.size(); ++e) a[e] = std::sin(0.7f * e);
  for (size_t e = 0; e < b.size(); ++e) b[e] = std::cos(0.3f * e);
  using TileGemm = void (*)(float*, int64_t, const float*, int64_t, int64_t, const float*, int64_t, int64_t, int64_t,
                            int64_t, float, bool);
  std::vector<std::pair<const char*, TileGemm>> paths = {{"baseline", tile_gemm_body<float, 32, kAvx2Rows>}};
#if TG_HAS_AVX_PATHS
  if (cpu_has_avx2_fma()) paths.emplace_back("avx2", tile_gemm_avx2<float>);
  if (cpu_has_avx512f()) paths.emplace_back("avx512", tile_gemm_avx512<float>);
#endif
  for (const auto& [name, tile_gemm_path] : paths)
    for (const int64_t width : {53, 29})
      for (const auto& [a_rs, a_ks] : {std::pair<int64_t, int64_t>{9, 1}, {1, 13}})
        for (const bool accumulate : {false, true}) {
          const std::string what = fmt::format("{} width {} a_rs {} a_ks {} accumulate {}", name, width, a_rs, a_ks,
                                               accumulate);  // INFO cannot take structured bindings in clang 14
          INFO(what);
          const int64_t ldc = 70;
          std::vector<float> c(11 * ldc, 0.5f), expected = c;
          for (int64_t i = 0; i < 11; ++i)
            for (int64_t j = 0; j < width; ++j) {
              float sum = 0;
              for (int64_t k = 0; k < 6; ++k) sum += a[i * a_rs + k * a_ks] * b[k * 60 + j];
              expected[i * ldc + j] = accumulate ? 0.5f + 1.5f * sum : 1.5f * sum;
            }
          tile_gemm_path(c.data(), ldc, a.data(), a_rs, a_ks, b.data(), 60, 11, 6, width, 1.5f, accumulate);
          for (size_t e = 0; e < c.size(); ++e) REQUIRE(c[e] == doctest::Approx(expected[e]).epsilon(1e-5));
        }
}

TEST_CASE("fused_attention tiles: TransposedTiles transposes each key tile once per source, in float and double") {
  using namespace fused_attention_tiles;
  // x: S = kBlockK + 3 rows of width 2, 5 apart; the second tile holds 3 keys
  const int64_t S = kBlockK + 3, ld = 5;
  std::vector<double> x(S * ld), y(S * ld);
  for (size_t e = 0; e < x.size(); ++e) x[e] = double(e), y[e] = -double(e);
  TransposedTiles<double> tiles(S, 2);
  const double* t1 = tiles.tile(x.data(), ld, kBlockK);
  for (int64_t j = 0; j < 3; ++j)
    for (int64_t d = 0; d < 2; ++d) REQUIRE(t1[d * kBlockK + j] == x[(kBlockK + j) * ld + d]);
  x[kBlockK * ld] = 1e9;  // the same source again: the kept tile, not transposed again
  REQUIRE(tiles.tile(x.data(), ld, kBlockK)[0] == double(kBlockK * ld));
  const double* t0 = tiles.tile(y.data(), ld, 0);  // another source: transposed
  REQUIRE(t0[kBlockK + 7] == y[7 * ld + 1]);
  // float: 4 x 4 blocks in registers, then the tails (width 6 = 4 + 2, the second tile's 7 keys
  // = 4 + 3)
  const int64_t S7 = kBlockK + 7, ld9 = 9;
  std::vector<float> f(S7 * ld9);
  for (size_t e = 0; e < f.size(); ++e) f[e] = float(e);
  TransposedTiles<float> float_tiles(S7, 6);
  for (const int64_t j0 : {int64_t{0}, kBlockK}) {
    const float* t = float_tiles.tile(f.data(), ld9, j0);
    for (int64_t j = 0; j < std::min(kBlockK, S7 - j0); ++j)
      for (int64_t d = 0; d < 6; ++d) REQUIRE(t[d * kBlockK + j] == f[(j0 + j) * ld9 + d]);
  }
}

TEST_CASE("fused_attention: hand-worked forward, causal, and the saved log-sum-exp") {
  // B = H = 1, two queries, two keys, head dim 1: q = (1, 1), k = (0, ln 3), v = (4, 8), scale 1.
  //   query 0 (causal) sees key 0 only: weight 1 -> out 4, lse = log(e^0) = 0
  //   query 1 sees both: scores (0, ln 3) -> weights (1/4, 3/4) -> out 1 + 6 = 7, lse = log(1 + 3)
  Tensor q = tensor({1, 1}, {1, 1, 2, 1}, kF64).requires_grad_();
  Tensor k = tensor({0, std::log(3.0)}, {1, 1, 2, 1}, kF64), v = tensor({4, 8}, {1, 1, 2, 1}, kF64);
  AttentionOptions o;
  o.is_causal = true;
  Tensor out = fused_attention(q, k, v, o);
  require_values(out, {4, 7}, 1e-12);
  REQUIRE(out.producer() != nullptr);
  CHECK(out.producer()->op == "fused_attention");
  BackwardContext ctx(*out.producer(), {});
  require_values(ctx.saved("lse"), {0, std::log(4.0)}, 1e-12);
  // Without the causal mask query 0 also weighs (1/4, 3/4).
  require_values(fused_attention(q, k, v), {7, 7}, 1e-12);
}

TEST_CASE("fused_attention: no queries (T = 0) gives k and v zero gradients") {
  Tensor q = rand64({1, 2, 0, 4}, 1).requires_grad_(), k = rand64({1, 2, 3, 4}, 2).requires_grad_();
  Tensor v = rand64({1, 2, 3, 2}, 3).requires_grad_();
  Tensor out = fused_attention(q, k, v);
  REQUIRE(out.shape() == Shape{1, 2, 0, 2});
  for (int i = 0; i < 4; ++i) full({64}, 7.0, kF64);  // blocks of 512 B, as dk's and dv's, left holding 7s
  out.backward(zeros({1, 2, 0, 2}, kF64));
  require_close(k.grad(), zeros({1, 2, 3, 4}, kF64), 0, 0);
  require_close(v.grad(), zeros({1, 2, 3, 2}, kF64), 0, 0);
}

TEST_CASE("fused_attention: no keys (S = 0) gives zero outputs and a zero gradient for q") {
  Tensor q = rand64({1, 2, 3, 4}, 1).requires_grad_(), k = rand64({1, 2, 0, 4}, 2).requires_grad_();
  Tensor v = rand64({1, 2, 0, 2}, 3).requires_grad_();
  Tensor out = fused_attention(q, k, v);
  require_close(out, zeros({1, 2, 3, 2}, kF64), 0, 0);
  for (int i = 0; i < 4; ++i) full({24}, 7.0, kF64);  // blocks of dq's size, left holding 7s
  out.backward(rand64({1, 2, 3, 2}, 4));
  require_close(q.grad(), zeros({1, 2, 3, 4}, kF64), 0, 0);
}

TEST_CASE("gradcheck fused_attention") {
  auto with = [](AttentionOptions o) {
    return [o](const std::vector<Tensor>& in) { return fused_attention(in[0], in[1], in[2], o); };
  };
  // (B,H,T,hs) = (2,2,3,4), S = 5 keys, hv = 3
  const std::vector<Tensor> qkv = {rand64({2, 2, 3, 4}, 1), rand64({2, 2, 5, 4}, 2), rand64({2, 2, 5, 3}, 3)};
  const Masks masks(3, 5);
  require_gradcheck("fused_attention", with({}), qkv);
  AttentionOptions causal, padded, boolean, additive, all, dropped;
  causal.is_causal = true;
  require_gradcheck("fused_attention", with(causal), qkv);
  padded.key_padding_mask = masks.padding;
  require_gradcheck("fused_attention", with(padded), qkv);
  boolean.attn_mask = masks.attn;
  require_gradcheck("fused_attention", with(boolean), qkv);
  additive.additive_mask = masks.additive;
  additive.scale = 0.8;
  require_gradcheck("fused_attention", with(additive), qkv);
  all.attn_mask = masks.attn;
  all.additive_mask = masks.additive;
  all.key_padding_mask = padding_mask({5, 0}, 5);  // the second sequence fully padded
  all.is_causal = true;
  require_gradcheck("fused_attention", with(all), qkv);
  dropped.dropout_p = 0.3;
  dropped.training = true;
  require_gradcheck("fused_attention", [dropped](const std::vector<Tensor>& in) {
    Generator gen(42);  // the same keep-mask at every evaluation
    AttentionOptions o = dropped;
    o.generator = &gen;
    return fused_attention(in[0], in[1], in[2], o);
  }, qkv);
  // Non-contiguous inputs: q with its last two dims transposed (copied by the op), and k, v
  // as multi-head attention makes them, (B,S,H,hs) transposed to (B,H,S,hs) (read in place).
  const Tensor k_heads = transpose(rand64({2, 5, 2, 4}, 5).detach(), 1, 2).requires_grad_();
  CHECK_FALSE(k_heads.is_contiguous());
  require_gradcheck("fused_attention", with(causal), {noncontig64({2, 2, 3, 4}, 4), k_heads, rand64({2, 2, 5, 3}, 6)});
  // Several query blocks (32 rows) and key blocks (64 keys): T = 35, S = 70.
  AttentionOptions blocks;
  blocks.is_causal = true;
  blocks.key_padding_mask = padding_mask({70, 40}, 70);
  require_gradcheck("fused_attention", with(blocks),
                    {rand64({2, 1, 35, 2}, 7), rand64({2, 1, 70, 2}, 8), rand64({2, 1, 70, 1}, 9)});
}

TEST_CASE("fused_attention: agrees with scaled_dot_product_attention, forward and gradients, f64 and f32") {
  // (B,H,T,hs) = (2,3,70,8), S = 45 keys, hv = 5: three query blocks, one key block.
  const std::vector<Tensor> qkv = {plain64({2, 3, 70, 8}, 1), plain64({2, 3, 45, 8}, 2), plain64({2, 3, 45, 5}, 3)};
  const Masks masks(70, 45);
  AttentionOptions o;
  SUBCASE("no mask") {}
  SUBCASE("is_causal") { o.is_causal = true; }
  SUBCASE("key_padding_mask") { o.key_padding_mask = masks.padding; }
  SUBCASE("attn_mask") { o.attn_mask = masks.attn; }
  SUBCASE("additive_mask and a scale") {
    o.additive_mask = masks.additive;
    o.scale = 0.3;
  }
  SUBCASE("dropout") {
    o.dropout_p = 0.25;
    o.training = true;
  }
  SUBCASE("every mask and dropout") {
    o.attn_mask = masks.attn;
    o.additive_mask = masks.additive;
    o.key_padding_mask = masks.padding;
    o.is_causal = true;
    o.dropout_p = 0.25;
    o.training = true;
  }
  require_fused_matches_composed(qkv, o);
}

TEST_CASE("fused_attention: boolean masks give the bits of the same masks written as additive 0 and -inf") {
  // A boolean mask only writes -inf over the scaled scores; an additive mask goes through the rule
  // per element (attention_score): dot * scale + 0 is dot * scale, + -inf is -inf. So both give the
  // same bits, forward and backward. (B,H,T,S) = (2,2,70,133): keys in two tiles, queries in three blocks.
  constexpr int64_t T = 70, S = 133;
  const std::vector<Tensor> qkv = {plain64({2, 2, T, 8}, 1), plain64({2, 2, S, 8}, 2), plain64({2, 2, S, 5}, 3)};
  const std::vector<int64_t> lengths = {S, 100};
  std::vector<bool> hidden(T * S);
  for (int64_t e = 0; e < T * S; ++e) hidden[e] = e % 3 == 1;
  AttentionOptions boolean, additive;
  std::vector<double> added(2 * T * S, 0.0);  // (2,1,T,S)
  auto hide = [&](int64_t b, int64_t i, int64_t j) { added[(b * T + i) * S + j] = -INFINITY; };
  SUBCASE("key_padding_mask") {
    boolean.key_padding_mask = padding_mask(lengths, S);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = lengths[b]; j < S; ++j) hide(b, i, j);
  }
  SUBCASE("attn_mask, key_padding_mask and is_causal") {
    boolean.attn_mask = tensor_bool(hidden, {T, S});
    boolean.key_padding_mask = padding_mask(lengths, S);
    boolean.is_causal = additive.is_causal = true;
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < T; ++i)
        for (int64_t j = 0; j < S; ++j)
          if (hidden[i * S + j] || j >= lengths[b]) hide(b, i, j);
  }
  SUBCASE("masks that hide nothing, and no mask") {
    boolean.attn_mask = tensor_bool(std::vector<bool>(T * S, false), {T, S});
    boolean.key_padding_mask = padding_mask({S, S}, S);
  }
  if (std::any_of(added.begin(), added.end(), [](double a) { return a != 0; }))
    additive.additive_mask = tensor(added, {2, 1, T, S}, kF64);
  const std::vector<Tensor> with_bool = run(true, qkv, kF32, boolean), with_additive = run(true, qkv, kF32, additive);
  const char* what[] = {"output", "dq", "dk", "dv"};
  for (int i = 0; i < 4; ++i) {
    INFO(what[i]);
    require_close(with_bool[i], with_additive[i], 0, 0);
  }
}

TEST_CASE("fused_attention: dropout over several key tiles, with rows starting at any draw of a Philox block") {
  // (B,H,T,S) = (1,2,70,133), hv = 3: S is odd, so the rows' first elements (n*T + i)*S fall on
  // each of the draws of a counter (eight of 16 bits, or four of 32 in numerics version 2); keys
  // in tiles of 64, 64 and 5, queries in blocks of 32.
  const std::vector<Tensor> qkv = {plain64({1, 2, 70, 4}, 1), plain64({1, 2, 133, 4}, 2), plain64({1, 2, 133, 3}, 3)};
  AttentionOptions o;
  o.dropout_p = 0.4;
  o.training = true;
  SUBCASE("no mask") {}
  SUBCASE("is_causal") { o.is_causal = true; }
  SUBCASE("key_padding_mask") { o.key_padding_mask = padding_mask({100}, 133); }
  SUBCASE("p = 1 drops every weight") { o.dropout_p = 1; }
  for (int64_t version : {kLatestNumerics, int64_t{2}}) {
    const NumericsGuard numerics(version);
    CAPTURE(version);
    require_fused_matches_composed(qkv, o);
  }
}

TEST_CASE("fused_attention: dk, dv summed over threads match with any thread count") {
  // 2*3 heads x 3 query blocks = 18 work items: 4 and 5 threads split heads between threads.
  const std::vector<Tensor> qkv = {plain64({2, 3, 70, 8}, 4), plain64({2, 3, 45, 8}, 5), plain64({2, 3, 45, 8}, 6)};
  AttentionOptions o;
  o.is_causal = true;
  o.dropout_p = 0.1;
  o.training = true;
  const std::vector<Tensor> composed = run(false, qkv, kF64, o);
  const int threads = omp_get_max_threads();
  for (int t : {1, 4, 5}) {
    omp_set_num_threads(t);
    std::vector<Tensor> fused = run(true, qkv, kF64, o);
    for (int i = 0; i < 4; ++i) {
      INFO(t, " threads, result ", i);
      require_close(fused[i], composed[i], 1e-12, 1e-12);
    }
  }
  omp_set_num_threads(threads);
}

TEST_CASE("fused_attention: heads split from (B,T,E) by a transpose: out merges back without a copy") {
  // q, k, v (B,H,L,d) = transposes of contiguous (B,L,H,d) leaves, as nn::MultiHeadAttention
  // makes them; the CPU kernel writes out, dq, dk, dv in that order, rows through strides.
  AttentionOptions o;
  o.is_causal = true;
  o.dropout_p = 0.2;
  o.training = true;
  // The output and the leaves' gradients, fused or composed, from the same dropout mask.
  auto attend = [&](bool fused) {
    std::vector<Tensor> leaves, split;
    for (Tensor t : {plain64({2, 70, 3, 8}, 1), plain64({2, 45, 3, 8}, 2), plain64({2, 45, 3, 5}, 3)}) {
      leaves.push_back(t.requires_grad_());
      split.push_back(transpose(leaves.back(), 1, 2));
    }
    Generator gen(42);
    o.generator = &gen;
    Tensor out = fused ? fused_attention(split[0], split[1], split[2], o)
                       : scaled_dot_product_attention(split[0], split[1], split[2], o).output;
    if (fused) CHECK(transpose(out, 1, 2).is_contiguous());  // (B,T,H,hv): merging heads is a view
    Generator grad_gen(7);
    out.backward(randn(out.shape(), kF64, kCPU, grad_gen));
    return std::vector<Tensor>{out, leaves[0].grad(), leaves[1].grad(), leaves[2].grad()};
  };
  const int threads = omp_get_max_threads();
  for (int t : {1, 4, 5}) {  // 4 and 5 threads share heads between threads: dk, dv summed at the end
    omp_set_num_threads(t);
    const std::vector<Tensor> fused = attend(true), composed = attend(false);
    for (int i = 0; i < 4; ++i) {
      INFO(t, " threads, result ", i);
      require_close(fused[i], composed[i], 1e-12, 1e-12);
    }
  }
  omp_set_num_threads(threads);
}

TEST_CASE("fused_attention: fully masked query rows give zeros and zero gradients, no NaN") {
  const std::vector<Tensor> qkv = {plain64({2, 1, 4, 3}, 1), plain64({2, 1, 6, 3}, 2), plain64({2, 1, 6, 2}, 3)};
  AttentionOptions o;
  o.key_padding_mask = padding_mask({6, 0}, 6);  // the second sequence has no real key
  std::vector<bool> rows(4 * 6, false);
  for (int j = 0; j < 6; ++j) rows[2 * 6 + j] = true;  // query 2 sees no key
  o.attn_mask = tensor_bool(rows, {4, 6});
  std::vector<Tensor> r = run(true, qkv, kF64, o);
  for (const Tensor& t : r) CHECK(all_finite(t));
  require_close(slice(r[0], 0, 1, 2), zeros({1, 1, 4, 2}, kF64), 0, 0);
  require_close(slice(r[0], 2, 2, 3), zeros({2, 1, 1, 2}, kF64), 0, 0);
  require_close(slice(r[1], 0, 1, 2), zeros({1, 1, 4, 3}, kF64), 0, 0);  // dq
  require_close(slice(r[2], 0, 1, 2), zeros({1, 1, 6, 3}, kF64), 0, 0);  // dk of the padded sequence
  require_fused_matches_composed(qkv, o);
}

TEST_CASE("fused_attention: dropout draws the keep-mask of ops/dropout from the same generator") {
  Tensor q = plain64({1, 2, 5, 4}, 1), k = plain64({1, 2, 7, 4}, 2), v = plain64({1, 2, 7, 3}, 3);
  AttentionOptions o;
  o.dropout_p = 0.5;
  o.training = true;
  Generator fused_gen(3), composed_gen(3);
  o.generator = &fused_gen;
  Tensor fused = fused_attention(q, k, v, o);
  o.generator = &composed_gen;
  Tensor composed = scaled_dot_product_attention(q, k, v, o).output;
  require_close(fused, composed, 1e-12, 1e-12);
  CHECK(fused_gen.offset() == composed_gen.offset());
  CHECK(fused_gen.offset() == dropout_counters(2 * 5 * 7, 0.5));
  // The mask really drops something, and evaluation mode draws nothing.
  CHECK(std::abs(sum(fused).item() - sum(fused_attention(q, k, v)).item()) > 1e-6);
  o.training = false;
  require_close(fused_attention(q, k, v, o), fused_attention(q, k, v), 0, 0);
  CHECK(composed_gen.offset() == fused_gen.offset());
}

TEST_CASE("fused_attention: the tape entry saves O(T) per query row, never a (T,S) tensor") {
  const int64_t T = 64, S = 64;
  Tensor q = rand64({1, 1, T, 4}, 1), k = rand64({1, 1, S, 4}, 2), v = rand64({1, 1, S, 4}, 3);
  auto largest_saved = [] {
    int64_t largest = 0;
    for (const auto& entry : tape().entries())
      for (const SavedTensor& s : entry->saved) largest = std::max(largest, s.tensor.numel());
    return largest;
  };
  tape().clear();
  Tensor composed = scaled_dot_product_attention(q, k, v).output;
  CHECK(largest_saved() >= T * S);  // the composed ops keep the weights: the check below can fail
  tape().clear();
  AttentionOptions o;
  o.attn_mask = causal_mask(T, S);
  Tensor fused = fused_attention(q, k, v, o);
  const auto entries = tape().entries();
  REQUIRE(entries.size() == 1);
  std::vector<std::string> names;
  for (const SavedTensor& s : entries[0]->saved) {
    names.push_back(s.name);
    if (s.name == "attn_mask")  // the caller's mask, not a copy
      CHECK(s.tensor.storage() == o.attn_mask.storage());
    else
      CHECK(s.tensor.numel() < T * S);
  }
  CHECK(names == std::vector<std::string>{"q", "k", "v", "out", "lse", "attn_mask"});
  CHECK(entries[0]->saved[4].tensor.shape() == Shape{1, 1, T});
  tape().clear();
}

TEST_CASE("fused_attention: float32 agrees with float64") {
  AttentionOptions o;
  o.is_causal = true;
  o.key_padding_mask = padding_mask({5, 2}, 5);
  require_f32_matches_f64([o](const std::vector<Tensor>& in) { return fused_attention(in[0], in[1], in[2], o); },
                          {rand64({2, 2, 3, 4}, 1), rand64({2, 2, 5, 4}, 2), rand64({2, 2, 5, 3}, 3)});
}

TEST_CASE("fused_attention: errors name the op, the argument and the shapes") {
  Tensor q = plain64({1, 2, 3, 4}, 1), k = plain64({1, 2, 5, 4}, 2), v = plain64({1, 2, 5, 3}, 3);
  auto throws = [](const std::function<void()>& f, const std::string& text) {
    CHECK_THROWS_WITH_AS(f(), doctest::Contains(text.c_str()), Error);
    CHECK_THROWS_WITH_AS(f(), doctest::Contains("fused_attention: "), Error);
  };
  throws([&] { fused_attention(reshape(q, {2, 3, 4}), k, v); }, "must be 4-D (B,H,T,hs), (B,H,S,hs), (B,H,S,hv), got q (2,3,4) k (1,2,5,4)");
  throws([&] { fused_attention(q, plain64({1, 2, 5, 6}, 4), v); }, "q and k head dims differ: q (1,2,3,4) k (1,2,5,6)");
  throws([&] { fused_attention(q, k, plain64({1, 2, 4, 3}, 4)); }, "different numbers of keys: q (1,2,3,4) k (1,2,5,4) v (1,2,4,3)");
  throws([&] { fused_attention(q, plain64({1, 1, 5, 4}, 4), v); }, "same (B,H) (no broadcasting)");
  throws([&] { fused_attention(q, to_dtype_copy(k, kF32), v); }, "fused_attention");
  AttentionOptions o;
  o.attn_mask = zeros({3, 5}, kF64);
  throws([&] { fused_attention(q, k, v, o); }, "attn_mask must be bool (true = masked out), got float64 (3,5)");
  o.attn_mask = causal_mask(3, 4);
  throws([&] { fused_attention(q, k, v, o); }, "attn_mask (3,4) does not broadcast to the scores (B,H,T,S) = (1,2,3,5)");
  o = {};
  o.key_padding_mask = padding_mask({5, 5}, 5);
  throws([&] { fused_attention(q, k, v, o); }, "key_padding_mask must be bool (B,S) = (1,5), got bool (2,5)");
  o = {};
  o.additive_mask = zeros({3, 5}, kF32);
  throws([&] { fused_attention(q, k, v, o); }, "additive_mask must have q's dtype float64, got float32 (3,5)");
  o.additive_mask = rand64({3, 5}, 5);
  throws([&] { fused_attention(q, k, v, o); }, "additive_mask (3,5) requires grad");
  o = {};
  o.need_weights = true;
  throws([&] { fused_attention(q, k, v, o); }, "need_weights");
  o = {};
  o.scale = 0;
  throws([&] { fused_attention(q, k, v, o); }, "scale must be a positive finite number");
  o = {};
  o.training = true;
  o.dropout_p = 1.5;
  throws([&] { fused_attention(q, k, v, o); }, "dropout_p must be in [0, 1], got 1.5");
}

TEST_CASE("fused_attention: CUDA matches CPU with every mask kind and dropout (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  // q (2,2,35,4), k (2,2,45,4), v (2,2,45,3), then the masks the case uses (inputs, so that
  // they move to the GPU with q, k, v).
  const std::vector<Tensor> qkv = {rand64({2, 2, 35, 4}, 1), rand64({2, 2, 45, 4}, 2), rand64({2, 2, 45, 3}, 3)};
  const Masks masks(35, 45);
  using Options = std::function<AttentionOptions(const std::vector<Tensor>&)>;
  auto output_of = [](Options options) {
    return [options](const std::vector<Tensor>& in) {
      Generator gen(42);
      AttentionOptions o = options(in);
      o.generator = &gen;
      return fused_attention(in[0], in[1], in[2], o);
    };
  };
  require_cuda_matches_cpu_with_grads("fused no mask", output_of([](auto&) { return AttentionOptions{}; }), qkv);
  std::vector<Tensor> with_masks = qkv;
  with_masks.insert(with_masks.end(), {masks.attn, masks.additive, padding_mask({45, 0}, 45)});
  require_cuda_matches_cpu_with_grads("fused every mask, causal, a fully padded sequence", output_of([](auto& in) {
                                        AttentionOptions o;
                                        o.attn_mask = in[3];
                                        o.additive_mask = in[4];
                                        o.key_padding_mask = in[5];
                                        o.is_causal = true;
                                        return o;
                                      }),
                                      with_masks);
  const auto dropout_with_padding = output_of([](auto& in) {
    AttentionOptions o;
    o.key_padding_mask = in[5];
    o.dropout_p = 0.3;
    o.training = true;
    return o;
  });
  require_cuda_matches_cpu_with_grads("fused dropout 0.3 with key padding", dropout_with_padding, with_masks);
  const NumericsGuard numerics_2(2);  // 32-bit draws
  require_cuda_matches_cpu_with_grads("fused dropout 0.3 with key padding, numerics 2", dropout_with_padding,
                                      with_masks);
}

TEST_CASE("fused_attention: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  require_gradcheck("fused_attention", [](const std::vector<Tensor>& in) {
    AttentionOptions o;
    o.is_causal = true;
    o.key_padding_mask = in[3];
    return fused_attention(in[0], in[1], in[2], o);
  }, on_gpu({rand64({2, 1, 3, 4}, 7), rand64({2, 1, 5, 4}, 8), rand64({2, 1, 5, 2}, 9), padding_mask({5, 1}, 5)}));
}
