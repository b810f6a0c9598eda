#include "nn/transformer_decoder.h"

#include <algorithm>

#include "nn/transformer.h"
#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

const nn::DecoderLayerConfig kTiny{.d_model = 4, .nhead = 2, .dim_feedforward = 6, .dropout = 0.1};

bool has_name(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

TEST_CASE("nn::TransformerDecoder: names layers.N.*, norm, forward is the layers in turn") {
  nn::TransformerDecoder dec(kTiny, 2, /*final_norm=*/true);
  const std::vector<std::string> names = names_of(dec.state_dict());
  REQUIRE(names.size() == 2 * 26 + 2);
  CHECK(names.front() == "layers.0.self_attn.q_proj.weight");
  CHECK(names[8] == "layers.0.multihead_attn.q_proj.weight");
  CHECK(names[26] == "layers.1.self_attn.q_proj.weight");
  CHECK(names[51] == "layers.1.norm3.bias");
  CHECK(names[52] == "norm.weight");
  CHECK(names[53] == "norm.bias");
  CHECK(max_abs_diff(dec.layers[0]->linear1->weight, dec.layers[1]->linear1->weight) > 0);  // each draws its own

  dec.eval();
  Generator gen(3);
  const Tensor tgt = rand({2, 3, 4}, kF32, kCPU, gen), memory = rand({2, 5, 4}, kF32, kCPU, gen);
  const nn::DecoderMasks masks{.memory_key_padding_mask = padding_mask({5, 2}, 5), .tgt_is_causal = true};
  const Tensor expected =
      dec.norm->forward(dec.layers[1]->forward(dec.layers[0]->forward(tgt, memory, masks), memory, masks));
  CHECK(max_abs_diff(dec.forward(tgt, memory, masks), expected) == 0);

  nn::TransformerDecoder no_norm(kTiny, 1);
  CHECK_FALSE(no_norm.norm);
  CHECK(no_norm.state_dict().size() == 26);
  CHECK_THROWS_WITH_AS(nn::TransformerDecoder(kTiny, 0), "TransformerDecoder: num_layers must be positive, got 0",
                       tg::Error);
  // Errors name the stack, not its first layer.
  CHECK_THROWS_WITH_AS(dec.forward(tgt, memory, {.memory_key_padding_mask = padding_mask({3, 2}, 3)}),
                       "TransformerDecoder: memory_key_padding_mask must be bool (B,S) = (2,5), true = padding, got "
                       "bool (2,3)", tg::Error);
}

TEST_CASE("nn::Transformer: nn.Transformer's names, both final norms, forward is decoder(tgt, encoder(src))") {
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    nn::DecoderLayerConfig config = kTiny;
    config.norm_first = norm_first;
    nn::Transformer model(config, 2, 1);
    const std::vector<std::string> names = names_of(model.state_dict());
    CHECK(names.size() == 2 * 16 + 2 + 26 + 2);
    CHECK(names.front() == "encoder.layers.0.self_attn.q_proj.weight");
    for (const char* name : {"encoder.layers.1.norm2.bias", "encoder.norm.weight", "encoder.norm.bias",
                             "decoder.layers.0.multihead_attn.out_proj.bias", "decoder.norm.weight"})
      CHECK_MESSAGE(has_name(names, name), name);
    CHECK(names.back() == "decoder.norm.bias");
    CHECK(model.encoder->layers.size() == 2);
    CHECK(model.decoder->layers.size() == 1);

    model.eval();
    Generator gen(4);
    const Tensor src = rand({2, 5, 4}, kF32, kCPU, gen), tgt = rand({2, 3, 4}, kF32, kCPU, gen);
    const Tensor src_padding = padding_mask({5, 3}, 5);
    const nn::TransformerMasks masks{.src_key_padding_mask = src_padding,
                                     .tgt_key_padding_mask = padding_mask({3, 2}, 3),
                                     .memory_key_padding_mask = src_padding,
                                     .tgt_is_causal = true};
    const Tensor memory = model.encoder->forward(src, {.key_padding_mask = src_padding});
    CHECK(max_abs_diff(model.forward(src, tgt, masks), model.decoder->forward(tgt, memory, masks.decoder())) == 0);
  }
}

TEST_CASE("nn::Transformer: bad inputs and masks are errors naming the argument and the shape expected") {
  nn::Transformer model(kTiny, 1, 1);
  Generator gen(2);
  const Tensor src = rand({2, 5, 4}, kF32, kCPU, gen), tgt = rand({2, 3, 4}, kF32, kCPU, gen);
  CHECK_THROWS_WITH_AS(model.forward(src, tgt, {.src_mask = zeros({5, 3}, kBool)}),
                       "Transformer: src_mask must be (S,S) = (5,5), (B*NH,S,S) = (4,5,5) or broadcast to (B,NH,S,S) "
                       "= (2,2,5,5), got (5,3)", tg::Error);
  CHECK_THROWS_WITH_AS(model.forward(src, tgt, {.src_key_padding_mask = zeros({2, 3}, kBool)}),
                       "Transformer: src_key_padding_mask must be bool (B,S) = (2,5), true = padding, got bool (2,3)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(model.forward(src, tgt, {.memory_mask = zeros({5, 3}, kBool)}),
                       doctest::Contains("Transformer: memory_mask must be (T,S) = (3,5)"), tg::Error);
  CHECK_THROWS_WITH_AS(model.forward(src, tgt, {.tgt_key_padding_mask = zeros({2, 5}, kBool)}),
                       doctest::Contains("Transformer: tgt_key_padding_mask must be bool (B,T) = (2,3)"), tg::Error);
  CHECK_THROWS_WITH_AS(model.forward(src, rand({3, 3, 4}, kF32, kCPU, gen)),
                       "Transformer: expected src (B,S,4) and tgt (B,T,4) with the same B, got src (2,5,4) and tgt "
                       "(3,3,4)", tg::Error);
  CHECK_THROWS_WITH_AS(model.forward(src, rand({2, 3, 4}, kF64, kCPU, gen)),
                       "Transformer: tgt must have src's dtype and device (float32 cpu), got float64 cpu", tg::Error);
  CHECK_THROWS_WITH_AS(nn::Transformer(kTiny, 1, 0), "TransformerDecoder: num_layers must be positive, got 0",
                       tg::Error);
}

TEST_CASE("nn::Transformer: CUDA matches CPU, output and every gradient (GPU)") {
  if (!gpu_available_or_skip()) return;
  // Tiny: B 2, S 3, T 2, E 4, one layer each (the emulator runs every kernel on the CPU).
  nn::DecoderLayerConfig config = kTiny;
  config.norm_first = true;
  nn::Transformer cpu(config, 1, 1), gpu(config, 1, 1);
  cpu.to_(kF64);
  randomize_parameters(cpu, 6);
  gpu.to_(kF64);
  gpu.load_state_dict(cpu.state_dict());
  gpu.to_(Device::cuda());
  cpu.eval();
  gpu.eval();
  const Tensor src = rand64({2, 3, 4}, 7), tgt = rand64({2, 2, 4}, 8);
  const Tensor src_padding = padding_mask({3, 2}, 3), tgt_mask = tensor({0, -0.5, 0.25, 0}, {2, 2}, kF64);
  const Tensor src_gpu = cuda_copy(src), tgt_gpu = cuda_copy(tgt);
  auto masks_on = [&](Device device) {
    const Tensor padding = to_device_copy(src_padding, device);
    return nn::TransformerMasks{.tgt_mask = to_device_copy(tgt_mask, device),
                                .src_key_padding_mask = padding,
                                .memory_key_padding_mask = padding,
                                .tgt_is_causal = true};
  };
  const Tensor out_cpu = cpu.forward(src, tgt, masks_on(kCPU));
  const Tensor out_gpu = gpu.forward(src_gpu, tgt_gpu, masks_on(Device::cuda()));
  const Tensor loss_weights = rand64({2, 2, 4}, 9).detach();
  sum(mul(out_cpu, loss_weights)).backward();
  sum(mul(out_gpu, to_device_copy(loss_weights, Device::cuda()))).backward();

  REQUIRE(out_gpu.is_cuda());
  require_close(to_device_copy(out_gpu, kCPU), out_cpu, 1e-10, 1e-10);
  require_close(to_device_copy(src_gpu.grad(), kCPU), src.grad(), 1e-10, 1e-10);
  require_close(to_device_copy(tgt_gpu.grad(), kCPU), tgt.grad(), 1e-10, 1e-10);
  const NamedTensors cpu_params = cpu.named_parameters(), gpu_params = gpu.named_parameters();
  REQUIRE(cpu_params.size() == gpu_params.size());
  for (size_t i = 0; i < cpu_params.size(); ++i) {
    CAPTURE(cpu_params[i].first);
    require_close(to_device_copy(gpu_params[i].second.grad(), kCPU), cpu_params[i].second.grad(), 1e-10, 1e-10);
  }
}
