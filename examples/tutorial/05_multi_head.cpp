// docs/tutorial.md, "Heads and W_O": nn::MultiHeadAttention, its parameters and per-head weights.
#include <tapegrad.h>

int main() {
  using namespace tg;
  manual_seed(0);
  const int64_t B = 1, T = 3, d_model = 8, heads = 2;
  nn::MultiHeadAttention mha(d_model, heads);
  for (const auto& [name, p] : mha.named_parameters()) fmt::print("{:<16} {}\n", name, shape_str(p.shape()));

  Tensor x = randn({B, T, d_model});
  nn::MhaResult r = mha.forward(x, x, x, {.is_causal = true, .need_weights = true});
  fmt::print("output {}, weights per head {}\n", shape_str(r.output.shape()), shape_str(r.weights.shape()));
  fmt::print("head 0 =\n{}\n", reshape(slice(r.weights, 1, 0, 1), {T, T}));
}
