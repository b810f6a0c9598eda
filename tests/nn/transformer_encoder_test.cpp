#include "core/safetensors_test_util.h"
#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::TransformerEncoder: names layers.N.*, norm, forward is the layers in turn") {
  const nn::EncoderLayerConfig config{
      .d_model = 4, .nhead = 2, .dim_feedforward = 6, .dropout = 0.1, .norm_first = true};
  nn::TransformerEncoder enc(config, 2, /*final_norm=*/true);
  std::vector<std::string> names = names_of(enc.state_dict());
  REQUIRE(names.size() == 2 * 16 + 2);
  CHECK(names.front() == "layers.0.self_attn.q_proj.weight");
  CHECK(names[7] == "layers.0.self_attn.out_proj.bias");
  CHECK(names[16] == "layers.1.self_attn.q_proj.weight");
  CHECK(names[31] == "layers.1.norm2.bias");
  CHECK(names[32] == "norm.weight");
  CHECK(names[33] == "norm.bias");
  // Each layer draws its own weights.
  CHECK(max_abs_diff(enc.layers[0]->linear1->weight, enc.layers[1]->linear1->weight) > 0);

  enc.eval();
  for (const auto& named : enc.named_modules()) {
    CHECK_MESSAGE(!named.second->is_training(), named.first);
  }
  Tensor x = rand({2, 3, 4}, kF32, kCPU, default_generator());
  const nn::MhaOptions masks{.is_causal = true};
  Tensor expected = enc.norm->forward(enc.layers[1]->forward(enc.layers[0]->forward(x, masks), masks));
  CHECK(max_abs_diff(enc.forward(x, masks), expected) == 0);

  nn::TransformerEncoder no_norm(config, 1);
  CHECK_FALSE(no_norm.norm);
  CHECK(no_norm.state_dict().size() == 16);
  CHECK_THROWS_WITH_AS(nn::TransformerEncoder(config, 0), doctest::Contains("TransformerEncoder: num_layers must be "
                                                                            "positive, got 0"), tg::Error);
}

TEST_CASE("nn::TransformerEncoder: a checkpoint through a safetensors file restores the outputs") {
  const nn::EncoderLayerConfig config{.d_model = 4, .nhead = 2, .dim_feedforward = 6};
  manual_seed(1);
  nn::TransformerEncoder a(config, 2, true);
  manual_seed(2);
  nn::TransformerEncoder b(config, 2, true);
  a.eval();
  b.eval();
  Tensor x = rand({2, 3, 4}, kF32, kCPU, default_generator());
  REQUIRE(max_abs_diff(a.forward(x), b.forward(x)) > 1e-3);
  ScratchDir dir;
  save_safetensors(dir.path / "encoder.safetensors", a.state_dict());
  SafetensorsFile file = load_safetensors(dir.path / "encoder.safetensors");
  b.load_state_dict(file.tensors);
  CHECK(max_abs_diff(a.forward(x), b.forward(x)) == 0);
}
