// PyTorch parity of the decoder modules: DecoderLayer (post-LN and pre-LN, once per mask kind),
// TransformerDecoder (2 layers, final norm) and Transformer, loaded with PyTorch's state_dicts,
// reproduce nn.TransformerDecoderLayer's, nn.TransformerDecoder's and nn.Transformer's outputs and
// the gradients of every input and parameter (float64, eval mode), and save PyTorch's state_dicts
// back bit for bit. The references are committed files written by
// tests/fixtures/make_pytorch_fixtures.py (decoder_layer, decoder_stack, transformer).
#include <map>
#include <nlohmann/json.hpp>

#include "core/safetensors_test_util.h"
#include "nn/decoder_layer.h"
#include "nn/pytorch_interop.h"
#include "nn/transformer.h"
#include "nn/transformer_decoder.h"
#include "pytorch_fixture_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// The largest difference seen is 1.5e-14 (pre-LN layer; see the MESSAGE lines): 1e-12 leaves a margin of 70.
constexpr double kParityTolerance = 1e-12;

const nn::DecoderLayerConfig kParityLayer{.d_model = 8, .nhead = 2, .dim_feedforward = 16, .dropout = 0};

// A <module>_reference.safetensors file with cases: input.<name>, mask.<name>, loss_weights, and
// per case <case>:output, <case>:input_grad.<name>, <case>:state_grad.<PyTorch name>.
struct CaseReference {
  SafetensorsFile file;
  std::map<std::string, Tensor> named;

  explicit CaseReference(const std::string& module)
      : file(load_safetensors(pytorch_fixture(module + "_reference.safetensors"))),
        named(file.tensors.begin(), file.tensors.end()) {}
  Tensor operator[](const std::string& name) const {
    auto it = named.find(name);
    REQUIRE_MESSAGE(it != named.end(), "the reference has no " << name);
    return it->second;
  }
  Tensor mask(const std::string& name) const { return (*this)["mask." + name]; }
  std::vector<std::string> cases() const {
    const nlohmann::json cases = nlohmann::json::parse(file.metadata.at("cases"));
    std::vector<std::string> names;
    for (const auto& [name, _] : cases.items()) names.push_back(name);
    return names;
  }
  NamedTensors state_grads(const std::string& c) const {  // in PyTorch's order
    const std::string prefix = c + ":state_grad.";
    NamedTensors grads;
    for (const auto& [name, t] : file.tensors)
      if (name.starts_with(prefix)) grads.emplace_back(name.substr(prefix.size()), t);
    REQUIRE_FALSE(grads.empty());
    return grads;
  }
};

// m in float64, eval mode, with PyTorch's parameters from <module>.safetensors.
void load_pytorch(nn::Module& m, const std::string& module) {
  m.to_(kF64);
  m.eval();
  nn::load_pytorch_safetensors(m, pytorch_fixture(module + ".safetensors"));
}

// Runs forward on fresh leaves holding the reference's inputs, backward from sum(out * loss_weights),
// and compares the output and the gradients of the inputs and of every parameter with case `c`.
// Returns the largest difference.
double require_case_matches(nn::Module& m, const CaseReference& ref, const std::string& c,
                            const std::vector<std::string>& input_names,
                            const std::function<Tensor(const std::vector<Tensor>&)>& forward) {
  CAPTURE(c);
  m.zero_grad();
  std::vector<Tensor> inputs;
  for (const std::string& name : input_names) inputs.push_back(ref["input." + name].detach().requires_grad_());
  Tensor out = forward(inputs);
  sum(mul(out, ref["loss_weights"])).backward();
  double worst = 0;
  require_near("output", out, ref[c + ":output"], kParityTolerance, worst);
  for (size_t i = 0; i < inputs.size(); ++i)
    require_near("d " + input_names[i], inputs[i].grad(), ref[c + ":input_grad." + input_names[i]], kParityTolerance, worst);
  require_parameter_grads(m, ref.state_grads(c), kParityTolerance, worst);
  return worst;
}

// The DecoderMasks of each case of the decoder layer fixtures (PyTorch got the causal mask as
// tgt_mask where tapegrad takes tgt_is_causal).
nn::DecoderMasks layer_case_masks(const CaseReference& ref, const std::string& c) {
  if (c == "none") return {};
  if (c == "tgt_is_causal") return {.tgt_is_causal = true};
  if (c == "tgt_mask" || c == "tgt_mask_float" || c == "tgt_mask_per_head") return {.tgt_mask = ref.mask(c)};
  if (c == "memory_mask") return {.memory_mask = ref.mask(c)};
  if (c == "tgt_key_padding_mask") return {.tgt_key_padding_mask = ref.mask(c)};
  if (c == "memory_key_padding_mask") return {.memory_key_padding_mask = ref.mask(c)};
  FAIL("a case this test does not know: " << c);
  return {};
}

}  // namespace

TEST_CASE("nn::DecoderLayer matches nn.TransformerDecoderLayer, post-LN and pre-LN, each mask kind") {
  for (const std::string module : {"pytorch_decoder_layer", "pytorch_decoder_layer_norm_first"}) {
    CAPTURE(module);
    nn::DecoderLayerConfig config = kParityLayer;
    config.norm_first = module.ends_with("norm_first");
    nn::DecoderLayer layer(config);
    load_pytorch(layer, module);
    const CaseReference ref(module);
    const std::vector<std::string> cases = ref.cases();
    REQUIRE(cases.size() == 8);
    double worst = 0;
    for (const std::string& c : cases) {
      const nn::DecoderMasks masks = layer_case_masks(ref, c);
      worst = std::max(worst, require_case_matches(layer, ref, c, {"tgt", "memory"}, [&](const auto& in) {
                         return layer.forward(in[0], in[1], masks);
                       }));
    }
    MESSAGE(module << ", " << cases.size() << " mask cases: largest |tapegrad - PyTorch| = " << worst);
  }
}

TEST_CASE("nn::TransformerDecoder (2 layers, final norm) matches nn.TransformerDecoder") {
  nn::TransformerDecoder decoder(kParityLayer, 2, /*final_norm=*/true);
  load_pytorch(decoder, "pytorch_decoder_2_layers");
  const CaseReference ref("pytorch_decoder_2_layers");
  REQUIRE(ref.cases() == std::vector<std::string>{"masked"});
  const nn::DecoderMasks masks{.tgt_key_padding_mask = ref.mask("tgt_key_padding_mask"),
                               .memory_key_padding_mask = ref.mask("memory_key_padding_mask"),
                               .tgt_is_causal = true};
  const double worst = require_case_matches(decoder, ref, "masked", {"tgt", "memory"}, [&](const auto& in) {
    return decoder.forward(in[0], in[1], masks);
  });
  MESSAGE("pytorch_decoder_2_layers: largest |tapegrad - PyTorch| = " << worst);
}

TEST_CASE("nn::Transformer (pre-LN, 2 + 2 layers) matches nn.Transformer") {
  nn::DecoderLayerConfig config = kParityLayer;
  config.norm_first = true;
  nn::Transformer model(config, 2, 2);
  load_pytorch(model, "pytorch_transformer");
  const CaseReference ref("pytorch_transformer");
  REQUIRE(ref.cases() == std::vector<std::string>{"masked"});
  const Tensor src_padding = ref.mask("src_key_padding_mask");
  const nn::TransformerMasks masks{.src_key_padding_mask = src_padding,
                                   .tgt_key_padding_mask = ref.mask("tgt_key_padding_mask"),
                                   .memory_key_padding_mask = src_padding,
                                   .tgt_is_causal = true};
  const double worst = require_case_matches(model, ref, "masked", {"src", "tgt"}, [&](const auto& in) {
    return model.forward(in[0], in[1], masks);
  });
  MESSAGE("pytorch_transformer: largest |tapegrad - PyTorch| = " << worst);
}

TEST_CASE("nn::pytorch_interop: decoder state_dicts load from PyTorch's and save back bit for bit") {
  ScratchDir dir;
  nn::DecoderLayerConfig pre_ln = kParityLayer;
  pre_ln.norm_first = true;
  const std::vector<std::pair<std::string, std::function<std::shared_ptr<nn::Module>()>>> modules = {
      {"pytorch_decoder_layer", [] { return std::make_shared<nn::DecoderLayer>(kParityLayer); }},
      {"pytorch_decoder_layer_norm_first", [&] { return std::make_shared<nn::DecoderLayer>(pre_ln); }},
      {"pytorch_decoder_2_layers", [] { return std::make_shared<nn::TransformerDecoder>(kParityLayer, 2, true); }},
      {"pytorch_transformer", [&] { return std::make_shared<nn::Transformer>(pre_ln, 2, 2); }}};
  for (const auto& entry : modules) {
    const std::string& module = entry.first;  // not a structured binding: clang 14 cannot capture one
    const auto& make = entry.second;
    CAPTURE(module);
    const NamedTensors pytorch = load_safetensors(pytorch_fixture(module + ".safetensors")).tensors;
    // The names convert both ways exactly, order included.
    require_bit_equal(nn::to_pytorch_state_dict(nn::from_pytorch_state_dict(pytorch)), pytorch);
    // Loaded (strictly: every name known, none missing), then saved: PyTorch's state_dict again.
    std::shared_ptr<nn::Module> m = make();
    load_pytorch(*m, module);
    nn::save_pytorch_safetensors(*m, dir.path / "export.safetensors");
    require_bit_equal(load_safetensors(dir.path / "export.safetensors").tensors, pytorch);
    // A fresh module (other values) takes the export back.
    std::shared_ptr<nn::Module> fresh = make();
    fresh->to_(kF64);
    REQUIRE(max_abs_diff(fresh->parameters().front(), m->parameters().front()) > 0);
    nn::load_pytorch_safetensors(*fresh, dir.path / "export.safetensors");
    require_bit_equal(fresh->state_dict(), m->state_dict());
  }
}
