#include <algorithm>
#include <functional>

#include "nn_test_util.h"
#include "ops/gelu/gelu.h"
#include "ops/relu/relu.h"

using namespace tg;
using namespace tg::test;

namespace {

nn::EncoderLayerConfig tiny(bool norm_first, nn::Activation activation = nn::Activation::relu) {
  return {.d_model = 4, .nhead = 2, .dim_feedforward = 6, .dropout = 0.1, .activation = activation,
          .layer_norm_eps = 1e-5, .norm_first = norm_first};
}

// The layer rebuilt from its children, as PyTorch's TransformerEncoderLayer.forward writes it
// (eval mode: no dropout).
Tensor reference(const nn::EncoderLayer& l, const Tensor& src, const nn::MhaOptions& masks) {
  auto sa = [&](const Tensor& x) { return l.self_attn->forward(x, x, x, masks).output; };
  auto ff = [&](const Tensor& x) {
    Tensor h = l.linear1->forward(x);
    return l.linear2->forward(l.config.activation == nn::Activation::relu ? relu(h) : gelu(h));
  };
  Tensor x = src;
  if (l.config.norm_first) {
    x = add(x, sa(l.norm1->forward(x)));
    return add(x, ff(l.norm2->forward(x)));
  }
  x = l.norm1->forward(add(x, sa(x)));
  return l.norm2->forward(add(x, ff(x)));
}

// One training forward and backward of a layer built from `config` (dropout 0.3, float64, fixed
// parameters, input and draws): what it computed and the ops its tape recorded. `prepare` runs
// on the layer before the forward (to add hooks, say).
struct TrainingPass {
  Tensor out, dsrc, dweight1;
  std::vector<std::string> ops;
  int64_t count(const std::string& op) const { return std::ranges::count(ops, op); }
};

TrainingPass training_pass(nn::EncoderLayerConfig config,
                           const std::function<void(nn::EncoderLayer&)>& prepare = nullptr) {
  config.dropout = 0.3;
  nn::EncoderLayer l(config);
  l.to_(kF64);
  randomize_parameters(l, 8);
  if (prepare) prepare(l);
  Tensor src = rand64({2, 3, 4}, 9).detach().requires_grad_();
  manual_seed(21);
  tape().clear();
  Tensor out = l.forward(src);
  std::vector<std::string> ops;
  for (const auto& e : tape().entries()) ops.push_back(e->op);
  sum(mul(out, out)).backward();
  return {out.detach(), src.grad(), l.linear1->weight.grad(), ops};
}

// Two passes that must have drawn and computed the same, bit for bit.
void require_same_values(const TrainingPass& a, const TrainingPass& b) {
  require_close(a.out, b.out, 0, 0);
  require_close(a.dsrc, b.dsrc, 0, 0);
  require_close(a.dweight1, b.dweight1, 0, 0);
}

}  // namespace

TEST_CASE("nn::EncoderLayer: PyTorch's names and post-LN / pre-LN semantics") {
  nn::EncoderLayer layer(tiny(false));
  CHECK(names_of(layer.state_dict()) ==
        std::vector<std::string>{"self_attn.q_proj.weight", "self_attn.q_proj.bias", "self_attn.k_proj.weight",
                                 "self_attn.k_proj.bias", "self_attn.v_proj.weight", "self_attn.v_proj.bias",
                                 "self_attn.out_proj.weight", "self_attn.out_proj.bias", "linear1.weight",
                                 "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias",
                                 "norm2.weight", "norm2.bias"});
  Tensor src = rand64({2, 3, 4}, 1).detach();
  const nn::MhaOptions masks{.key_padding_mask = tensor_bool({false, false, true, false, false, false}, {2, 3})};
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    nn::EncoderLayer l(tiny(norm_first, nn::Activation::gelu));
    l.to_(kF64);
    randomize_parameters(l, 2);
    l.eval();
    Tensor out = l.forward(src, masks);
    CHECK(out.shape() == Shape{2, 3, 4});
    require_close(out, reference(l, src, masks), 1e-12, 1e-12);
    // The two orders really differ.
    nn::EncoderLayer other(tiny(!norm_first, nn::Activation::gelu));
    other.to_(kF64);
    other.load_state_dict(l.state_dict());
    other.eval();
    CHECK(max_abs_diff(other.forward(src, masks), out) > 1e-3);
    // Dropout (p = 0.1) is active in training.
    l.train();
    CHECK(max_abs_diff(l.forward(src, masks), out) > 1e-6);
  }
}

TEST_CASE("nn::EncoderLayer: gradcheck, post-LN and pre-LN") {
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    nn::EncoderLayer l(tiny(norm_first, norm_first ? nn::Activation::gelu : nn::Activation::relu));
    l.to_(kF64);
    randomize_parameters(l, 3);
    l.eval();
    const nn::MhaOptions masks{.key_padding_mask = tensor_bool({false, false, false, false, true, true}, {2, 3})};
    require_module_gradcheck(l, {rand64({2, 3, 4}, 4)},
                             [&](const std::vector<Tensor>& in) { return l.forward(in[0], masks); });
  }
}

TEST_CASE("nn::EncoderLayer: the feed-forward's linear_relu_dropout gives what linear, relu then dropout give, "
          "in training") {
  // One layer, trained as built (fuse_relu_dropout), with the three ops, and with a forward hook
  // on linear1 (which then runs alone, followed by relu_dropout, so that the hook sees its
  // output): the same draws from the global generator, so the same output and gradients, bit for
  // bit, and the tape shows the difference.
  nn::EncoderLayerConfig plain_config = tiny(false);
  plain_config.fuse_relu_dropout = false;
  Tensor seen;
  const TrainingPass fused = training_pass(tiny(false)), plain = training_pass(plain_config);
  const TrainingPass hooked = training_pass(tiny(false), [&seen](nn::EncoderLayer& l) {
    l.linear1->register_forward_hook([&seen](const nn::Module&, const TensorList&, const TensorList& out) {
      seen = out[0];
    });
  });
  require_same_values(fused, plain);
  require_same_values(fused, hooked);
  CHECK(fused.count("linear_relu_dropout") == 1);
  CHECK(fused.count("relu_dropout") + fused.count("relu") == 0);
  CHECK(plain.count("linear_relu_dropout") + plain.count("relu_dropout") == 0);
  CHECK(plain.count("relu") == 1);
  CHECK(plain.count("dropout") == fused.count("dropout") + 1);
  CHECK(plain.count("linear") == fused.count("linear") + 1);
  CHECK(hooked.count("linear_relu_dropout") == 0);
  CHECK(hooked.count("relu_dropout") == 1);
  REQUIRE(seen.defined());
  CHECK(seen.shape() == Shape{2, 3, 6});  // linear1 (dim_feedforward 6), before the relu
}

TEST_CASE("nn::EncoderLayer: each residual connection with the block's last linear layer is one linear_dropout_add "
          "(pre-LN) or linear_dropout_add_layer_norm (post-LN), in training") {
  // One layer, post-LN and pre-LN, as built and with forward hooks on both residual dropouts
  // (which then run as dropout, then add (then layer_norm), so that the hooks see the dropout's
  // own output): the same draws from the global generator, so the same output and gradients, bit
  // for bit.
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    std::vector<Tensor> seen;
    const TrainingPass fused = training_pass(tiny(norm_first));
    const TrainingPass hooked = training_pass(tiny(norm_first), [&seen](nn::EncoderLayer& l) {
      for (const auto& d : {l.dropout1, l.dropout2})
        d->register_forward_hook(
            [&seen](const nn::Module&, const TensorList&, const TensorList& out) { seen.push_back(out[0]); });
    });
    REQUIRE(seen.size() == 2);
    for (const Tensor& t : seen) CHECK(t.producer()->op == "dropout");  // the dropout's output, not the sum
    require_same_values(fused, hooked);
    const std::string residual_op = norm_first ? "linear_dropout_add" : "linear_dropout_add_layer_norm";
    for (const std::string op :
         {"dropout_add", "dropout_add_layer_norm", "linear_dropout_add", "linear_dropout_add_layer_norm"}) {
      CAPTURE(op);
      CHECK(fused.count(op) == (op == residual_op ? 2 : 0));
      CHECK(hooked.count(op) == 0);
    }
    CHECK(hooked.count("dropout") == fused.count("dropout") + 2);
    CHECK(hooked.count("add") == fused.count("add") + 2);
    CHECK(hooked.count("layer_norm") == fused.count("layer_norm") + (norm_first ? 0 : 2));
    CHECK(hooked.count("linear") == fused.count("linear") + 2);
  }
}

TEST_CASE("nn::EncoderLayer: a post-LN residual connection watched by a hook on its norm, its last linear layer or "
          "the attention falls back to the unfused ops, with the same bits") {
  // hooked norms: linear, then dropout_add and layer_norm (the norm's forward); a hooked out_proj,
  // attention or linear2: linear, then dropout_add_layer_norm
  const TrainingPass fused = training_pass(tiny(false));
  struct Watched {
    std::string what, residual_op;
    std::function<std::vector<nn::Module*>(nn::EncoderLayer&)> modules;
  };
  const std::vector<Watched> cases{
      {"norm1, norm2", "dropout_add",
       [](nn::EncoderLayer& l) { return std::vector<nn::Module*>{l.norm1.get(), l.norm2.get()}; }},
      {"out_proj, linear2", "dropout_add_layer_norm",
       [](nn::EncoderLayer& l) { return std::vector<nn::Module*>{l.self_attn->out_proj.get(), l.linear2.get()}; }},
      {"self_attn, linear2", "dropout_add_layer_norm",
       [](nn::EncoderLayer& l) { return std::vector<nn::Module*>{l.self_attn.get(), l.linear2.get()}; }}};
  for (const Watched& c : cases) {
    CAPTURE(c.what);
    int calls = 0;
    const TrainingPass hooked = training_pass(tiny(false), [&](nn::EncoderLayer& l) {
      for (nn::Module* m : c.modules(l))
        m->register_forward_hook([&calls](const nn::Module&, const TensorList&, const TensorList&) { ++calls; });
    });
    CHECK(calls == 2);
    require_same_values(fused, hooked);
    CHECK(fused.count("linear_dropout_add_layer_norm") == 2);
    CHECK(hooked.count("linear_dropout_add_layer_norm") == 0);
    CHECK(hooked.count(c.residual_op) == 2);
    CHECK(hooked.count("linear") == fused.count("linear") + 2);
  }
}

TEST_CASE("nn::EncoderLayer: a fully padded sequence stays finite") {
  nn::EncoderLayer l(tiny(false));
  Generator gen(5);
  Tensor x = rand({2, 3, 4}, kF32, kCPU, gen);
  x.requires_grad_();
  Tensor y = l.forward(x, {.key_padding_mask = tensor_bool({false, true, true, true, true, true}, {2, 3})});
  CHECK(all_finite(y));
  sum(y).backward();
  CHECK(all_finite(x.grad()));
  for (const Tensor& p : l.parameters()) CHECK(all_finite(p.grad()));
}

TEST_CASE("nn::EncoderLayer: bad config is an error") {
  CHECK_THROWS_WITH_AS(nn::EncoderLayer(6, 4), doctest::Contains("num_heads must be positive and divide d_model"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(nn::EncoderLayer(nn::EncoderLayerConfig{}),
                       doctest::Contains("EncoderLayer: d_model, nhead and dim_feedforward must be positive, got 0, 0 "
                                         "and 2048"), tg::Error);
}
