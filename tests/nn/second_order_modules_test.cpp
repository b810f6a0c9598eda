// Second order and forward over reverse through whole modules, in float64: each module's output
// (projected) differentiated twice with respect to its input and one of its weights, on the CPU
// and on a GPU when there is one (the CUDA emulator in CI). The other parameters are held.
#include <doctest/doctest.h>

#include "nn/nn.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// fn(x, weight) with the module's parameter `weight_name` bound to `weight`, checked to second
// order (gradgradcheck) and by forward over reverse, on each device.
void require_second_order(nn::Module& module, const std::string& weight_name, const Tensor& x,
                          const std::function<Tensor(const Tensor&)>& forward) {
  module.to_(kF64);
  Tensor weight;
  for (const auto& [name, p] : module.named_parameters())
    if (name == weight_name) weight = p.detach();
  REQUIRE(weight.defined());
  auto fn = [&](const std::vector<Tensor>& in) {
    return module.functional_call({{weight_name, in[1]}}, [&] { return forward(in[0]); });
  };
  const std::vector<Tensor> inputs{x, copy_keeping_strides(weight, kF64, kCPU)};
  const GradcheckResult second = gradgradcheck(fn, inputs);
  INFO(second.report);
  CHECK(second.ok);
  const GradcheckResult fwd = check_fwd_over_rev(fn, inputs);
  INFO(fwd.report);
  CHECK(fwd.ok);
  if (gpu_available_or_skip()) {
    module.to_(Device::cuda());
    const std::vector<Tensor> on_gpu{cuda_copy(inputs[0]), cuda_copy(inputs[1])};
    const GradcheckResult gpu = gradgradcheck(fn, on_gpu);
    INFO(gpu.report);
    CHECK(gpu.ok);
    module.to_(kCPU);
  }
}

}  // namespace

TEST_CASE("second order: MultiHeadAttention with every mask kind, fused and composed, on the CPU and the GPU") {
  const Tensor x = rand64({1, 3, 4}, 1);  // (B,T,E)
  const Tensor bool_mask = tensor_bool({false, true, false, false, false, true, false, false, false}, {3, 3});
  const Tensor additive = tensor({0, 0, -1e9, 0, 0, 0, -1e9, 0, 0}, {3, 3}, kF64);
  const Tensor padding = tensor_bool({false, false, true}, {1, 3});
  const std::vector<std::pair<const char*, nn::MhaOptions>> kinds = {
      {"none", {}},
      {"causal", {.is_causal = true}},
      {"attn_mask", {.attn_mask = bool_mask}},
      {"additive_mask", {.additive_mask = additive}},
      {"key_padding_mask", {.key_padding_mask = padding}},
  };
  for (bool fused : {true, false})
    for (const auto& kind_options : kinds) {
      const auto& [kind, options] = kind_options;
      const std::string name = kind;  // CAPTURE cannot take a structured binding in clang 14
      CAPTURE(name);
      CAPTURE(fused);
      nn::MultiHeadAttention mha(4, 2);
      nn::MhaOptions o = options;
      o.fused = fused;
      require_second_order(mha, "q_proj.weight", x, [&](const Tensor& in) {
        nn::MhaOptions on_device = o;
        for (Tensor* m : {&on_device.attn_mask, &on_device.additive_mask, &on_device.key_padding_mask})
          if (m->defined()) *m = to_device_copy(*m, in.device());
        return mha.forward(in, in, in, on_device).output;
      });
    }
}

TEST_CASE("second order: EncoderLayer and DecoderLayer, post-LN and pre-LN, on the CPU and the GPU") {
  for (bool norm_first : {false, true}) {
    CAPTURE(norm_first);
    nn::EncoderLayer encoder(4, 2, 8, 0.0, nn::Activation::gelu, 1e-5, norm_first);
    require_second_order(encoder, "linear1.weight", rand64({1, 3, 4}, 2),
                         [&](const Tensor& in) { return encoder.forward(in, {.is_causal = true}); });
    nn::DecoderLayer decoder(
        {.d_model = 4, .nhead = 2, .dim_feedforward = 8, .dropout = 0.0, .norm_first = norm_first});
    const Tensor memory = rand64({1, 2, 4}, 3).detach();
    require_second_order(decoder, "multihead_attn.k_proj.weight", rand64({1, 3, 4}, 4), [&](const Tensor& in) {
      return decoder.forward(in, to_device_copy(memory, in.device()), {.tgt_is_causal = true});
    });
  }
}

TEST_CASE("second order: LayerNorm and cross-entropy (label smoothing, ignore_index) on the CPU and the GPU") {
  nn::LayerNorm norm({4});
  require_second_order(norm, "weight", rand64({2, 4}, 5), [&](const Tensor& in) { return norm.forward(in); });
  nn::Linear head(4, 3);
  const Tensor target = tensor_i64({0, 2, -100, 1}, {4});
  require_second_order(head, "weight", rand64({4, 4}, 6), [&](const Tensor& in) {
    return cross_entropy(head.forward(in), to_device_copy(target, in.device()),
                         {.ignore_index = -100, .label_smoothing = 0.1});
  });
}
