// What a module shows of itself: its parameters' dotted names on the tape, its path on the tape's
// entries, forward hooks, and the composed path (set_composed) that records every op separately.
#include <algorithm>
#include <map>
#include <memory>

#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

std::vector<std::string> ops_on_tape() {
  std::vector<std::string> ops;
  for (const auto& e : tape().entries()) ops.push_back(e->op);
  return ops;
}

bool has(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

nn::EncoderLayerConfig small_layer(double dropout = 0) {
  return {.d_model = 8, .nhead = 2, .dim_feedforward = 16, .dropout = dropout};
}

}  // namespace

TEST_CASE("nn::Module: every tape entry records the module whose forward made it") {
  nn::TransformerEncoder encoder(small_layer(), 2, /*final_norm=*/true);
  encoder.set_composed(true);
  for (const auto& [name, module] : encoder.named_modules()) CHECK(*module->path() == name);
  CHECK(*encoder.layers[1]->self_attn->q_proj->path() == "layers.1.self_attn.q_proj");

  tape().clear();
  Tensor x = rand({1, 3, 8}).requires_grad_();
  Tensor loss = sum(encoder.forward(x));
  std::map<std::string, std::vector<std::string>> ops_by_module;  // "" : made outside every module
  for (const auto& e : tape().entries()) ops_by_module[e->module ? *e->module : ""].push_back(e->op);
  CHECK(current_module() == nullptr);  // every scope closed with its forward
  CHECK(ops_by_module.at("layers.0.self_attn.q_proj") == std::vector<std::string>{"transpose", "matmul", "add"});
  CHECK(ops_by_module.at("layers.1.norm2") == std::vector<std::string>{"layer_norm"});
  CHECK(ops_by_module.at("norm") == std::vector<std::string>{"layer_norm"});
  CHECK(has(ops_by_module.at("layers.0.self_attn"), "softmax"));  // between its projections
  CHECK(ops_by_module.at("") == std::vector<std::string>{"sum"});
  const auto modules = encoder.named_modules();
  for (const auto& entry : ops_by_module) {
    const std::string& module = entry.first;
    CAPTURE(module);
    const auto named = [&](const auto& m) { return m.first == module; };
    CHECK((module.empty() || std::any_of(modules.begin(), modules.end(), named)));
  }
}

TEST_CASE("nn::Module: parameters and buffers are named as in state_dict, on the tensor and on the tape") {
  nn::TransformerEncoder encoder(small_layer(), 2, /*final_norm=*/true);
  for (const auto& [name, t] : encoder.named_parameters()) CHECK(t.name() == name);
  for (const auto& [name, t] : encoder.named_buffers()) CHECK(t.name() == name);
  CHECK(encoder.layers[1]->self_attn->q_proj->weight.name() == "layers.1.self_attn.q_proj.weight");

  tape().clear();
  Tensor x = rand({1, 3, 8}).requires_grad_();
  Tensor y = encoder.forward(x);  // held: the graph lives as long as its output
  std::string printed = fmt::format("{}", tape());
  CHECK(printed.find("layers.0.self_attn.q_proj.weight (8,8)") != std::string::npos);
  CHECK(printed.find("layers.0.self_attn.k_proj.weight (8,8)") != std::string::npos);
  CHECK(printed.find("layers.1.norm2.bias (8,)") != std::string::npos);
  CHECK(tape().to_dot().find("layers.0.linear1.weight\\n(16,8)") != std::string::npos);

  // A name given by the user is kept when the module is registered as a child.
  auto proj = std::make_shared<nn::Linear>(2, 2);
  proj->weight.set_name("mine");
  struct Holder : nn::Module {
    explicit Holder(std::shared_ptr<nn::Linear> p) : Module("Holder") { register_module("proj", std::move(p)); }
  } holder(proj);
  CHECK(proj->weight.name() == "mine");
  CHECK(proj->bias.name() == "proj.bias");
}

TEST_CASE("nn::Module: forward hooks see inputs and outputs, by module name, until removed") {
  manual_seed(3);
  nn::TransformerEncoder encoder(small_layer(), 2);
  encoder.set_composed(true);
  std::map<std::string, Tensor> weights;
  std::vector<HookHandle> handles;
  for (const auto& [module_name, m] : encoder.named_modules())
    if (m->type() == "MultiHeadAttention")
      handles.push_back(m->register_forward_hook(
          [&weights, name = module_name](const nn::Module& module, const TensorList& in, const TensorList& out) {
            CHECK(module.type() == "MultiHeadAttention");
            CHECK(in.size() == 3);
            REQUIRE(out.size() == 2);
            weights[name] = out[1];
          }));
  REQUIRE(handles.size() == 2);
  Tensor x = rand({2, 3, 8});
  Tensor y = encoder.forward(x, {.is_causal = true});
  REQUIRE(weights.size() == 2);
  for (const char* name : {"layers.0.self_attn", "layers.1.self_attn"}) {
    CAPTURE(name);
    const Tensor& w = weights.at(name);
    REQUIRE(w.defined());
    CHECK(w.shape() == Shape{2, 2, 3, 3});  // (B, NH, T, S)
    const std::vector<float> v = w.to_vector<float>();
    for (int64_t row = 0; row < 2 * 2 * 3; ++row) {
      float total = 0;
      for (int64_t j = 0; j < 3; ++j) total += v[row * 3 + j];
      CHECK(total == doctest::Approx(1).epsilon(1e-5));
      CHECK(v[row * 3 + 2] == (row % 3 == 2 ? v[row * 3 + 2] : 0.0f));  // causal: key 2 only for query 2
    }
  }
  // On the fused path the weights are never formed: the hook sees an undefined tensor.
  encoder.set_composed(false);
  encoder.forward(x);
  CHECK_FALSE(weights.at("layers.0.self_attn").defined());

  for (HookHandle& h : handles) h.remove();
  weights.clear();
  encoder.forward(x);
  CHECK(weights.empty());

  nn::Linear linear(2, 3);
  int calls = 0;
  HookHandle once = linear.register_forward_hook([&](const nn::Module&, const TensorList& in, const TensorList& out) {
    ++calls;
    CHECK(in.at(0).shape() == Shape{4, 2});
    CHECK(out.at(0).shape() == Shape{4, 3});
  });
  linear.forward(rand({4, 2}));
  CHECK(calls == 1);
  CHECK_THROWS_WITH_AS(linear.register_forward_hook(nullptr), doctest::Contains("empty function"), Error);
}

TEST_CASE("nn::Module: set_composed records every op separately, for the module and all below it") {
  nn::EncoderLayer layer(small_layer(0.1));
  CHECK_FALSE(layer.is_composed());
  Tensor x = rand({2, 3, 8}).requires_grad_();

  tape().clear();
  Tensor y = layer.forward(x);  // held: the graph lives as long as its output
  std::vector<std::string> fused = ops_on_tape();
  CHECK(has(fused, "fused_attention"));
  CHECK(has(fused, "linear_relu_dropout"));
  CHECK(has(fused, "linear"));

  layer.set_composed(true);
  CHECK(layer.self_attn->q_proj->is_composed());
  tape().clear();
  y = layer.forward(x);
  std::vector<std::string> composed = ops_on_tape();
  for (const char* op : {"fused_attention", "relu_dropout", "linear"}) CHECK_FALSE(has(composed, op));
  for (const char* op : {"matmul", "softmax", "relu", "dropout", "transpose", "add", "mul"})
    CHECK(has(composed, op));

  // A child registered under a composed module takes its setting, as with train().
  struct Parent : nn::Module {
    Parent() : Module("Parent") {}
    void adopt(std::shared_ptr<nn::Linear> child) { register_module("child", std::move(child)); }
  } parent;
  parent.set_composed(true);
  auto child = std::make_shared<nn::Linear>(2, 2);
  parent.adopt(child);
  CHECK(child->is_composed());
}

TEST_CASE("nn::Linear: the composed path (matmul, transpose, add) gives the fused linear's values and gradients") {
  for (bool bias : {true, false}) {
    CAPTURE(bias);
    nn::Linear linear(4, 3, bias);
    linear.to_(kF64);
    randomize_parameters(linear, 5);
    Tensor x = rand64({2, 5, 4}, 6);
    auto run = [&](bool composed) {
      linear.set_composed(composed);
      linear.zero_grad();
      Tensor y = linear.forward(x);
      sum(mul(y, y)).backward();
      std::vector<Tensor> out{y.detach(), x.grad(), linear.weight.grad()};
      if (bias) out.push_back(linear.bias.grad());
      x.zero_grad();
      return out;
    };
    const std::vector<Tensor> fused = run(false), composed = run(true);
    for (size_t i = 0; i < fused.size(); ++i) require_close(composed[i], fused[i], 1e-12, 1e-12);
  }
}
