// docs/tutorial.md, "Residual + LayerNorm": post-LN and pre-LN encoder layers.
#include <tapegrad.h>

int main() {
  using namespace tg;
  manual_seed(0);
  Tensor x = mul(randn({1, 3, 8}), 5.0);  // a residual stream with a large spread
  for (bool norm_first : {false, true}) {
    nn::EncoderLayer layer({.d_model = 8, .nhead = 2, .dim_feedforward = 16, .norm_first = norm_first});
    layer.eval();  // dropout off
    Tensor y = layer.forward(x);
    Tensor centred = sub(y, mean(y, {2}, true));
    Tensor variance = mean(mul(centred, centred), {2});
    fmt::print("{}: per-token variance of the output {}\n", norm_first ? "pre-LN " : "post-LN", variance);
  }
}
