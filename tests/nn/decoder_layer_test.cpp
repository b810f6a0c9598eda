#include "nn/decoder_layer.h"

#include <map>

#include "nn_test_util.h"
#include "ops/relu/relu.h"

using namespace tg;
using namespace tg::test;

namespace {

// B 2, T 3 target positions, S 4 memory positions, E 4, NH 2
nn::DecoderLayerConfig tiny_decoder_layer(bool norm_first, double dropout = 0.1) {
  return {.d_model = 4, .nhead = 2, .dim_feedforward = 6, .dropout = dropout, .norm_first = norm_first};
}

nn::DecoderLayer& prepared(nn::DecoderLayer& l, uint64_t seed) {
  l.to_(kF64);
  randomize_parameters(l, seed);
  l.eval();
  return l;
}

// Every mask kind at once: tgt_mask (T,T) float, memory_mask (T,S), both padding masks, causal.
nn::DecoderMasks all_masks() {
  return {.tgt_mask = tensor({0, 0.5, 0, -1, 0, 0.25, 0, 0, 0}, {3, 3}, kF64),
          .memory_mask = tensor_bool({false, false, true, true, false, false, false, true, false, false, false, false},
                                     {3, 4}),
          .tgt_key_padding_mask = tensor_bool({false, false, false, false, false, true}, {2, 3}),
          .memory_key_padding_mask = tensor_bool({false, false, false, true, false, true, false, false}, {2, 4}),
          .tgt_is_causal = true};
}

// The layer rebuilt from its children, as PyTorch's TransformerDecoderLayer.forward writes it
// (eval mode: no dropout), with the masks in MultiHeadAttention's terms.
Tensor decoder_reference(const nn::DecoderLayer& l, const Tensor& tgt, const Tensor& memory, const nn::DecoderMasks& m) {
  const nn::MhaOptions self{.additive_mask = m.tgt_mask, .key_padding_mask = m.tgt_key_padding_mask,
                            .is_causal = m.tgt_is_causal};
  const nn::MhaOptions cross{.attn_mask = m.memory_mask, .key_padding_mask = m.memory_key_padding_mask};
  auto sa = [&](const Tensor& x) { return l.self_attn->forward(x, x, x, self).output; };
  auto mha = [&](const Tensor& x) { return l.multihead_attn->forward(x, memory, memory, cross).output; };
  auto ff = [&](const Tensor& x) { return l.linear2->forward(relu(l.linear1->forward(x))); };
  Tensor x = tgt;
  if (l.config.norm_first) {
    x = add(x, sa(l.norm1->forward(x)));
    x = add(x, mha(l.norm2->forward(x)));
    return add(x, ff(l.norm3->forward(x)));
  }
  x = l.norm1->forward(add(x, sa(x)));
  x = l.norm2->forward(add(x, mha(x)));
  return l.norm3->forward(add(x, ff(x)));
}

}  // namespace

TEST_CASE("nn::DecoderLayer: PyTorch's names, post-LN and pre-LN as nn.TransformerDecoderLayer writes them") {
  nn::DecoderLayer layer(tiny_decoder_layer(false));
  std::vector<std::string> expected;
  for (const char* attention : {"self_attn.", "multihead_attn."})
    for (const char* proj : {"q_proj.", "k_proj.", "v_proj.", "out_proj."})
      for (const char* kind : {"weight", "bias"}) expected.push_back(std::string(attention) + proj + kind);
  for (const char* name : {"linear1", "linear2", "norm1", "norm2", "norm3"})
    for (const char* kind : {".weight", ".bias"}) expected.push_back(std::string(name) + kind);
  CHECK(names_of(layer.state_dict()) == expected);

  const Tensor tgt = rand64({2, 3, 4}, 1).detach(), memory = rand64({2, 4, 4}, 2).detach();
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    nn::DecoderLayer l(tiny_decoder_layer(norm_first));
    prepared(l, 3);
    const Tensor out = l.forward(tgt, memory, all_masks());
    CHECK(out.shape() == Shape{2, 3, 4});
    require_close(out, decoder_reference(l, tgt, memory, all_masks()), 1e-12, 1e-12);
    // The memory is attended to: another memory gives another output.
    CHECK(max_abs_diff(l.forward(tgt, rand64({2, 4, 4}, 4).detach(), all_masks()), out) > 1e-3);
    // The two orders really differ.
    nn::DecoderLayer other(tiny_decoder_layer(!norm_first));
    other.to_(kF64);
    other.load_state_dict(l.state_dict());
    other.eval();
    CHECK(max_abs_diff(other.forward(tgt, memory, all_masks()), out) > 1e-3);
    // Dropout (p = 0.1) is active in training.
    l.train();
    CHECK(max_abs_diff(l.forward(tgt, memory, all_masks()), out) > 1e-6);
  }
}

TEST_CASE("nn::DecoderLayer: gradcheck with every mask kind, post-LN and pre-LN") {
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    nn::DecoderLayer l(tiny_decoder_layer(norm_first));
    prepared(l, 5);
    const nn::DecoderMasks masks = all_masks();
    require_module_gradcheck(l, {rand64({2, 3, 4}, 6), rand64({2, 4, 4}, 7)},
                             [&](const std::vector<Tensor>& in) { return l.forward(in[0], in[1], masks); });
  }
}

TEST_CASE("nn::DecoderLayer: tgt_is_causal is the causal tgt_mask, the masks change what is seen") {
  nn::DecoderLayer l(tiny_decoder_layer(false));
  prepared(l, 8);
  const Tensor tgt = rand64({2, 3, 4}, 9).detach(), memory = rand64({2, 4, 4}, 10).detach();
  const Tensor causal = l.forward(tgt, memory, {.tgt_is_causal = true});
  require_close(causal, l.forward(tgt, memory, {.tgt_mask = causal_mask(3)}), 1e-14, 0);
  CHECK(max_abs_diff(causal, l.forward(tgt, memory)) > 1e-3);
  // Causal: position 0's output does not depend on the later target positions.
  const Tensor changed = cat({slice(tgt, 1, 0, 1), rand64({2, 2, 4}, 11).detach()}, 1);
  const Tensor later = l.forward(changed, memory, {.tgt_is_causal = true});
  CHECK(max_abs_diff(slice(later, 1, 0, 1), slice(causal, 1, 0, 1)) < 1e-14);
  CHECK(max_abs_diff(later, causal) > 1e-3);
  // A padded memory position is not attended to: changing it changes nothing.
  const Tensor padding = tensor_bool({false, false, false, true, false, false, false, true}, {2, 4});
  const Tensor other_memory = cat({slice(memory, 1, 0, 3), rand64({2, 1, 4}, 12).detach()}, 1);
  require_close(l.forward(tgt, other_memory, {.memory_key_padding_mask = padding}),
                l.forward(tgt, memory, {.memory_key_padding_mask = padding}), 1e-14, 0);
}

TEST_CASE("nn::DecoderLayer: the composed path (set_composed) gives the fused one's results, dropout included") {
  for (bool norm_first : {true, false}) {
    CAPTURE(norm_first);
    nn::DecoderLayer l(tiny_decoder_layer(norm_first, /*dropout=*/0.2));
    l.to_(kF64);
    randomize_parameters(l, 13);
    const Tensor tgt = rand64({2, 3, 4}, 14).detach(), memory = rand64({2, 4, 4}, 15).detach();
    // Output, input and parameter gradients of one training step, and how many of each op the tape shows.
    auto step = [&](bool composed) {
      l.set_composed(composed);
      l.zero_grad();
      tape().clear();
      Tensor t = tgt.detach().requires_grad_(), m = memory.detach().requires_grad_();
      manual_seed(16);  // the same dropout draws on both paths
      Tensor out = l.forward(t, m, all_masks());
      std::map<std::string, int> ops;
      for (const auto& e : tape().entries()) ++ops[e->op];
      sum(mul(out, out)).backward();
      std::vector<Tensor> results{out, t.grad(), m.grad()};
      for (const Tensor& p : l.parameters()) results.push_back(p.grad());
      return std::pair{results, ops};
    };
    auto [fused, fused_ops] = step(false);
    auto [composed, composed_ops] = step(true);
    CHECK(fused_ops["fused_attention"] == 2);  // self- and cross-attention
    CHECK(fused_ops["linear_relu_dropout"] == 1);  // the feed-forward's linear1, relu and dropout
    CHECK(composed_ops["fused_attention"] == 0);
    CHECK(composed_ops["linear_relu_dropout"] + composed_ops["relu_dropout"] == 0);
    CHECK(composed_ops["softmax"] == 2);
    // the three residual connections with the block's last linear layer (the attentions' out_proj,
    // linear2): dropout and sum (pre-LN), or dropout, sum and norm (post-LN)
    CHECK(fused_ops[norm_first ? "linear_dropout_add" : "linear_dropout_add_layer_norm"] == 3);
    CHECK(fused_ops["dropout_add"] + fused_ops["dropout_add_layer_norm"] == 0);
    CHECK(composed_ops["dropout_add"] + composed_ops["dropout_add_layer_norm"] + composed_ops["linear_dropout_add"] +
              composed_ops["linear_dropout_add_layer_norm"] ==
          0);
    REQUIRE(fused.size() == composed.size());
    for (size_t i = 0; i < fused.size(); ++i) {
      INFO("result ", i);
      require_close(fused[i], composed[i], 1e-12, 1e-12);
    }
    tape().clear();
  }
}

TEST_CASE("nn::DecoderLayer: a fully padded memory stays finite, forward and backward") {
  nn::DecoderLayer l(tiny_decoder_layer(true));
  Generator gen(5);
  Tensor tgt = rand({2, 3, 4}, kF32, kCPU, gen), memory = rand({2, 4, 4}, kF32, kCPU, gen);
  tgt.requires_grad_();
  memory.requires_grad_();
  const Tensor all_padding = tensor_bool(std::vector<bool>(8, true), {2, 4});
  Tensor y = l.forward(tgt, memory, {.memory_key_padding_mask = all_padding, .tgt_is_causal = true});
  CHECK(all_finite(y));
  sum(y).backward();
  CHECK(all_finite(tgt.grad()));
  CHECK(all_finite(memory.grad()));
  for (const Tensor& p : l.parameters()) CHECK(all_finite(p.grad()));
}

TEST_CASE("nn::DecoderLayer: bad inputs and masks are errors naming the argument and the shape expected") {
  nn::DecoderLayer l(tiny_decoder_layer(false));
  Generator gen(1);
  const Tensor tgt = rand({2, 3, 4}, kF32, kCPU, gen), memory = rand({2, 4, 4}, kF32, kCPU, gen);
  auto forward = [&](const nn::DecoderMasks& masks) { l.forward(tgt, memory, masks); };
  CHECK_THROWS_WITH_AS(forward({.tgt_mask = zeros({3, 4}, kBool)}),
                       "DecoderLayer: tgt_mask must be (T,T) = (3,3), (B*NH,T,T) = (4,3,3) or broadcast to "
                       "(B,NH,T,T) = (2,2,3,3), got (3,4)", tg::Error);
  CHECK_THROWS_WITH_AS(forward({.memory_mask = zeros({3, 3}, kBool)}),
                       "DecoderLayer: memory_mask must be (T,S) = (3,4), (B*NH,T,S) = (4,3,4) or broadcast to "
                       "(B,NH,T,S) = (2,2,3,4), got (3,3)", tg::Error);
  CHECK_THROWS_WITH_AS(forward({.memory_mask = zeros({3, 4}, kI64)}),
                       "DecoderLayer: memory_mask must be bool (true = masked out) or float32 (added to the scores), "
                       "got int64 (3,4)", tg::Error);
  CHECK_THROWS_WITH_AS(forward({.tgt_mask = zeros({3, 3}, kF64)}),
                       doctest::Contains("tgt_mask must be bool (true = masked out) or float32"), tg::Error);
  CHECK_THROWS_WITH_AS(forward({.tgt_key_padding_mask = zeros({2, 4}, kBool)}),
                       "DecoderLayer: tgt_key_padding_mask must be bool (B,T) = (2,3), true = padding, got bool (2,4)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(forward({.memory_key_padding_mask = zeros({2, 4}, kF32)}),
                       "DecoderLayer: memory_key_padding_mask must be bool (B,S) = (2,4), true = padding, got float32 "
                       "(2,4)", tg::Error);
  CHECK_THROWS_WITH_AS(l.forward(tgt, rand({2, 4, 6}, kF32, kCPU, gen)),
                       "DecoderLayer: expected tgt (B,T,4) and memory (B,S,4) with the same B, got tgt (2,3,4) and "
                       "memory (2,4,6)", tg::Error);
  CHECK_THROWS_WITH_AS(l.forward(tgt, rand({1, 4, 4}, kF32, kCPU, gen)), doctest::Contains("memory (1,4,4)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(l.forward(tgt, rand({2, 4, 4}, kF64, kCPU, gen)),
                       "DecoderLayer: memory must have tgt's dtype and device (float32 cpu), got float64 cpu",
                       tg::Error);
  CHECK_THROWS_WITH_AS(l.forward(tgt, Tensor()), doctest::Contains("DecoderLayer"), tg::Error);
  // PyTorch's per-head (B*NH,T,T) and a broadcast (B,1,T,S) are accepted.
  CHECK_NOTHROW(forward({.tgt_mask = zeros({4, 3, 3}, kBool), .memory_mask = zeros({2, 1, 3, 4}, kBool)}));
  CHECK_THROWS_WITH_AS(nn::DecoderLayer(nn::DecoderLayerConfig{}),
                       "DecoderLayer: d_model, nhead and dim_feedforward must be positive, got 0, 0 and 2048",
                       tg::Error);
}
