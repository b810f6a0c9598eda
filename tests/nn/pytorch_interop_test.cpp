// PyTorch interop: our MultiHeadAttention, EncoderLayer and TransformerEncoder, loaded with PyTorch's
// state_dicts, reproduce PyTorch's outputs and gradients (float64, eval mode). The references are
// committed files written by tests/fixtures/make_pytorch_fixtures.py (torch is not needed here).
#include "nn/pytorch_interop.h"

#include <map>

#include "core/safetensors_test_util.h"
#include "pytorch_fixture_util.h"

using namespace tg;
using namespace tg::test;
namespace fs = std::filesystem;

namespace {

// The largest differences seen between PyTorch's float64 values and ours (outputs, attention weights
// and every gradient; see the MESSAGE lines) are 2.7e-15 (attention), 1.0e-15 (2-layer encoder) and
// 4.0e-15 (norm_first layer; the encoders run fused_attention); the bound leaves a margin of about 25.
constexpr double kTolerance = 1e-13;

// A <module>_reference.safetensors file: state_grad.<pytorch name> in the file's order, the rest by name.
struct Reference {
  NamedTensors state_grad;
  std::map<std::string, Tensor> named;
  Tensor operator[](const std::string& name) const {
    auto it = named.find(name);
    REQUIRE_MESSAGE(it != named.end(), "the reference has no " << name);
    return it->second;
  }
  Tensor input(const std::string& name) const { return (*this)["input." + name].detach().requires_grad_(); }
};

Reference load_reference(const std::string& module) {
  Reference ref;
  for (auto& [name, t] : load_safetensors(pytorch_fixture(module + "_reference.safetensors")).tensors)
    if (name.starts_with("state_grad.")) ref.state_grad.emplace_back(name.substr(11), t);
    else ref.named.emplace(name, t);
  REQUIRE_FALSE(ref.state_grad.empty());
  return ref;
}

const nn::EncoderLayerConfig kLayer{.d_model = 8, .nhead = 2, .dim_feedforward = 16, .dropout = 0};

// Runs a (B,T,E) -> (B,T,E) encoder on the reference's src and key padding mask, backward from
// sum(output * loss_weights), and compares with PyTorch.
void require_encoder_matches(nn::Module& m, const std::string& module,
                             const std::function<Tensor(const Tensor&, const nn::MhaOptions&)>& forward) {
  m.to_(kF64);
  m.eval();
  nn::load_pytorch_safetensors(m, pytorch_fixture(module + ".safetensors"));
  const Reference ref = load_reference(module);
  Tensor src = ref.input("src");
  Tensor out = forward(src, {.key_padding_mask = ref["mask.key_padding"]});
  sum(mul(out, ref["loss_weights"])).backward();

  double worst = 0;
  require_near("output", out, ref["output"], kTolerance, worst);
  require_near("d src", src.grad(), ref["input_grad.src"], kTolerance, worst);
  require_parameter_grads(m, ref.state_grad, kTolerance, worst);
  MESSAGE(module << ": largest |tapegrad - PyTorch| = " << worst);
}

}  // namespace

TEST_CASE("nn::pytorch_interop: MultiHeadAttention matches nn.MultiheadAttention (output, weights, gradients)") {
  nn::MultiHeadAttention mha(8, 2, 0.0);
  mha.to_(kF64);
  mha.eval();
  nn::load_pytorch_safetensors(mha, pytorch_fixture("pytorch_mha.safetensors"));
  const Reference ref = load_reference("pytorch_mha");
  Tensor query = ref.input("query"), key = ref.input("key"), value = ref.input("value");
  nn::MhaResult r = mha.forward(
      query, key, value,
      {.attn_mask = ref["mask.attn"], .key_padding_mask = ref["mask.key_padding"], .need_weights = true});
  sum(mul(r.output, ref["loss_weights"])).backward();

  double worst = 0;
  require_near("output", r.output, ref["output"], kTolerance, worst);
  require_near("mean weights", r.mean_weights, ref["output_mean_weights"], kTolerance, worst);
  require_near("d query", query.grad(), ref["input_grad.query"], kTolerance, worst);
  require_near("d key", key.grad(), ref["input_grad.key"], kTolerance, worst);
  require_near("d value", value.grad(), ref["input_grad.value"], kTolerance, worst);
  require_parameter_grads(mha, ref.state_grad, kTolerance, worst);
  MESSAGE("pytorch_mha: largest |tapegrad - PyTorch| = " << worst);
  // The masks did mask: batch 1's padded key and query 0's keys 2, 3 get no weight.
  CHECK(max_abs_diff(slice(slice(r.mean_weights, 0, 1, 2), 2, 3, 4), zeros({1, 3, 1}, kF64)) == 0);
  CHECK(max_abs_diff(slice(slice(r.mean_weights, 1, 0, 1), 2, 2, 4), zeros({2, 1, 2}, kF64)) == 0);
}

TEST_CASE("nn::pytorch_interop: TransformerEncoder (post-LN, 2 layers, final norm) matches nn.TransformerEncoder") {
  nn::TransformerEncoder enc(kLayer, 2, /*final_norm=*/true);
  require_encoder_matches(enc, "pytorch_encoder_2_layers",
                          [&](const Tensor& src, const nn::MhaOptions& masks) { return enc.forward(src, masks); });
}

TEST_CASE("nn::pytorch_interop: EncoderLayer (norm_first) matches nn.TransformerEncoderLayer") {
  nn::EncoderLayerConfig config = kLayer;
  config.norm_first = true;
  nn::EncoderLayer layer(config);
  require_encoder_matches(layer, "pytorch_encoder_layer_norm_first",
                          [&](const Tensor& src, const nn::MhaOptions& masks) { return layer.forward(src, masks); });
}

TEST_CASE("nn::pytorch_interop: in_proj splits into q, k, v rows, the round trip is exact, order included") {
  const NamedTensors mha = load_safetensors(pytorch_fixture("pytorch_mha.safetensors")).tensors;
  REQUIRE(names_of(mha) ==
          std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"});
  const NamedTensors ours = nn::from_pytorch_state_dict(mha);
  REQUIRE(names_of(ours) == std::vector<std::string>{"q_proj.weight", "k_proj.weight", "v_proj.weight", "q_proj.bias",
                                                     "k_proj.bias", "v_proj.bias", "out_proj.weight", "out_proj.bias"});
  // q, k, v are rows [0,8), [8,16), [16,24) of in_proj_weight and entries of in_proj_bias.
  CHECK(ours[1].second.shape() == Shape{8, 8});
  CHECK(ours[1].second.to_vector<double>() == slice(mha[0].second, 0, 8, 16).to_vector<double>());
  CHECK(ours[5].second.to_vector<double>() == slice(mha[1].second, 0, 16, 24).to_vector<double>());
  CHECK(ours[6].second.to_vector<double>() == mha[2].second.to_vector<double>());

  for (const char* file : {"pytorch_mha", "pytorch_encoder_2_layers", "pytorch_encoder_layer_norm_first"}) {
    CAPTURE(file);
    const NamedTensors sd = load_safetensors(pytorch_fixture(std::string(file) + ".safetensors")).tensors;
    require_bit_equal(nn::to_pytorch_state_dict(nn::from_pytorch_state_dict(sd)), sd);
  }
  // Our own order (q.weight, q.bias, k.weight, ...) packs into PyTorch's.
  nn::MultiHeadAttention m(8, 2);
  const NamedTensors packed = nn::to_pytorch_state_dict(m.state_dict());
  CHECK(names_of(packed) == names_of(mha));
  CHECK(packed[0].second.to_vector<float>() ==
        cat({m.q_proj->weight, m.k_proj->weight, m.v_proj->weight}, 0).to_vector<float>());
}

TEST_CASE("nn::pytorch_interop: save_pytorch_safetensors writes PyTorch's state_dict, it loads back exactly") {
  ScratchDir dir;
  nn::TransformerEncoder enc(kLayer, 2, /*final_norm=*/true);
  enc.to_(kF64);
  nn::load_pytorch_safetensors(enc, pytorch_fixture("pytorch_encoder_2_layers.safetensors"));
  nn::save_pytorch_safetensors(enc, dir.path / "export.safetensors");
  // The same names, order and bytes as the state_dict PyTorch saved.
  require_bit_equal(load_safetensors(dir.path / "export.safetensors").tensors,
                    load_safetensors(pytorch_fixture("pytorch_encoder_2_layers.safetensors")).tensors);

  nn::TransformerEncoder fresh(kLayer, 2, /*final_norm=*/true);
  fresh.to_(kF64);
  CHECK(max_abs_diff(fresh.layers[0]->linear1->weight, enc.layers[0]->linear1->weight) > 0);
  nn::load_pytorch_safetensors(fresh, dir.path / "export.safetensors");
  require_bit_equal(fresh.state_dict(), enc.state_dict());
}

TEST_CASE("nn::pytorch_interop: errors name the entry and its shape") {
  auto w = [](const Shape& shape) { return zeros(shape, kF64); };
  auto from = [](const NamedTensors& sd) { return nn::from_pytorch_state_dict(sd); };
  auto to = [](const NamedTensors& sd) { return nn::to_pytorch_state_dict(sd); };
  CHECK_THROWS_WITH_AS(from({{"self_attn.in_proj_weight", w({10, 8})}}),
                       "from_pytorch_state_dict: 'self_attn.in_proj_weight' (10,8) float64 cpu: expected (3E,E), q, k "
                       "and v stacked, but its first dim is not divisible by 3", tg::Error);
  CHECK_THROWS_WITH_AS(from({{"in_proj_weight", w({24, 7})}}), doctest::Contains("(24,7) float64 cpu: expected (3E,E), "
                       "q, k and v stacked, i.e. (24,8)"), tg::Error);
  CHECK_THROWS_WITH_AS(from({{"in_proj_weight", w({24})}}), doctest::Contains("but it is not 2-D"), tg::Error);
  CHECK_THROWS_WITH_AS(from({{"in_proj_bias", w({10})}}),
                       doctest::Contains("'in_proj_bias' (10,) float64 cpu: expected (3E)"), tg::Error);
  CHECK_THROWS_WITH_AS(from({{"in_proj_weight", w({24, 8})}, {"in_proj_bias", w({21})}}),
                       "from_pytorch_state_dict: 'in_proj_bias' (21,) float64 cpu does not match 'in_proj_weight' "
                       "(24,8) float64 cpu: expected (24)", tg::Error);
  CHECK_THROWS_WITH_AS(from({{"a.bias_k", w({1, 1, 8})}, {"a.out_proj.weight", w({8, 8})}}),
                       doctest::Contains("'a.bias_k': nn.MultiheadAttention with kdim/vdim != embed_dim"), tg::Error);
  CHECK_THROWS_WITH_AS(from({{"in_proj_weight", w({24, 8})}, {"k_proj.weight", w({8, 8})}}),
                       doctest::Contains("more than once (given twice, or both packed and unpacked): k_proj.weight"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(from({{"in_proj_weight", Tensor()}}), doctest::Contains("from_pytorch_state_dict"), tg::Error);
  // A bias_k outside an attention, and a q_proj without an out_proj, are left alone.
  CHECK(names_of(from({{"bias_k", w({2})}})) == std::vector<std::string>{"bias_k"});
  CHECK(names_of(to({{"q_proj.weight", w({2, 2})}})) == std::vector<std::string>{"q_proj.weight"});

  NamedTensors ours{{"q_proj.weight", w({8, 8})}, {"k_proj.weight", w({8, 4})}, {"v_proj.weight", w({8, 8})},
                    {"out_proj.weight", w({8, 8})}};
  CHECK_THROWS_WITH_AS(to(ours), "to_pytorch_state_dict: 'in_proj_weight' packs three (E,E) pieces of one dtype and "
                       "device, got 'q_proj.weight' (8,8) float64 cpu, 'k_proj.weight' (8,4) float64 cpu and "
                       "'v_proj.weight' (8,8) float64 cpu", tg::Error);
  ours[1].second = zeros({8, 8}, kF32);
  CHECK_THROWS_WITH_AS(to(ours), doctest::Contains("'k_proj.weight' (8,8) float32 cpu"), tg::Error);
  ours.erase(ours.begin() + 1);
  CHECK_THROWS_WITH_AS(to(ours), "to_pytorch_state_dict: 'k_proj.weight' is missing: in_proj_weight needs all of "
                       "q_proj.weight, k_proj.weight, v_proj.weight", tg::Error);
  CHECK_THROWS_WITH_AS(to({{"in_proj_weight", w({2})}, {"in_proj_weight", w({2})}}),
                       doctest::Contains("more than once"), tg::Error);
}

TEST_CASE("nn::pytorch_interop: load_pytorch_safetensors is strict and names the file") {
  ScratchDir dir;
  const fs::path path = dir.path / "mha.safetensors";
  NamedTensors sd = load_safetensors(pytorch_fixture("pytorch_mha.safetensors")).tensors;
  sd.emplace_back("extra.weight", zeros({2}, kF64));
  sd.erase(sd.begin() + 3);  // out_proj.bias
  save_safetensors(path, sd);
  nn::MultiHeadAttention mha(8, 2);
  CHECK_THROWS_WITH_AS(nn::load_pytorch_safetensors(mha, path),
                       ("load_pytorch_safetensors: " + path.string() + ": load_state_dict: into MultiHeadAttention: "
                        "missing entries: out_proj.bias; unexpected entries: extra.weight").c_str(), tg::Error);
  const nn::LoadResult r = nn::load_pytorch_safetensors(mha, path, /*strict=*/false);
  CHECK(r.missing == std::vector<std::string>{"out_proj.bias"});
  CHECK(r.unexpected == std::vector<std::string>{"extra.weight"});
  CHECK(mha.q_proj->weight.to_vector<float>() == to_dtype_copy(slice(sd[0].second, 0, 0, 8), kF32).to_vector<float>());

  nn::MultiHeadAttention small(4, 2);  // named as the file has them, not as the q/k/v pieces
  CHECK_THROWS_WITH_AS(nn::load_pytorch_safetensors(small, path, false),
                       ("load_pytorch_safetensors: " + path.string() + ": into MultiHeadAttention: wrong shapes: "
                        "in_proj_weight (expected (12,4), got (24,8)), in_proj_bias (expected (12,), got (24,)), "
                        "out_proj.weight (expected (4,4), got (8,8))").c_str(), tg::Error);
  CHECK_THROWS_AS(nn::load_pytorch_safetensors(mha, dir.path / "absent.safetensors"), tg::Error);
}
