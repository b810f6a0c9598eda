// docs/tutorial.md, "Three model shapes": encoder, decoder-only and encoder-decoder.
#include <tapegrad.h>

#include <cmath>

int main() {
  using namespace tg;
  manual_seed(0);
  const nn::EncoderLayerConfig layer{.d_model = 8, .nhead = 2, .dim_feedforward = 16, .dropout = 0};
  Tensor src = randn({2, 5, 8});  // (B,S,E): 2 source sequences of 5 embedded tokens
  Tensor tgt = randn({2, 3, 8});  // (B,T,E): 2 target sequences of 3
  // tgt with its last position changed: what a causal model must not see from position 0
  Tensor tgt_later = cat({slice(tgt, 1, 0, 2), randn({2, 1, 8})}, 1);
  auto first_position_moved = [](const Tensor& a, const Tensor& b) {  // max |a - b| at position 0
    Tensor d = sub(slice(a, 1, 0, 1), slice(b, 1, 0, 1));
    return std::sqrt(max(mul(d, d)).item());
  };
  auto parameter_count = [](const nn::Module& m) {
    int64_t n = 0;
    for (const Tensor& p : m.parameters()) n += p.numel();
    return n;
  };

  // Encoder: every position sees every other one.
  nn::TransformerEncoder encoder(layer, 2, /*final_norm=*/true);
  Tensor encoded = encoder.forward(tgt);
  fmt::print("encoder          {} -> {}, position 0 moved by {:.3f}\n", shape_str(tgt.shape()),
             shape_str(encoded.shape()), first_position_moved(encoded, encoder.forward(tgt_later)));

  // Decoder-only: the same blocks, causal (position t sees positions <= t).
  nn::TransformerEncoder decoder_only(layer, 2, /*final_norm=*/true);
  Tensor generated = decoder_only.forward(tgt, {.is_causal = true});
  fmt::print("decoder-only     {} -> {}, position 0 moved by {:.3f}\n", shape_str(tgt.shape()),
             shape_str(generated.shape()),
             first_position_moved(generated, decoder_only.forward(tgt_later, {.is_causal = true})));

  // Encoder-decoder: the decoder is causal over tgt and attends to all of the encoded src.
  nn::Transformer model(layer, /*num_encoder_layers=*/2, /*num_decoder_layers=*/2);
  Tensor out = model.forward(src, tgt, {.tgt_is_causal = true});
  fmt::print("encoder-decoder  {} + {} -> {}, position 0 moved by {:.3f}\n", shape_str(src.shape()),
             shape_str(tgt.shape()), shape_str(out.shape()),
             first_position_moved(out, model.forward(src, tgt_later, {.tgt_is_causal = true})));
  const NamedTensors pytorch = nn::to_pytorch_state_dict(model.state_dict());  // nn.Transformer's names
  fmt::print("parameters: encoder {}, decoder {}; state_dict {} ... {}\n", parameter_count(*model.encoder),
             parameter_count(*model.decoder), pytorch.front().first, pytorch.back().first);
}
