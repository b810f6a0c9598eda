// docs/tutorial.md, "One head": QKV projections, scaled scores, the causal mask, softmax, the weighted sum.
#include <tapegrad.h>

#include <cmath>

int main() {
  using namespace tg;
  manual_seed(0);
  const int64_t T = 4, d_model = 8, d_k = 4;
  Tensor x = randn({T, d_model});                         // 4 tokens of width 8
  nn::Linear q_proj(d_model, d_k), k_proj(d_model, d_k), v_proj(d_model, d_k);
  Tensor q = q_proj.forward(x), k = k_proj.forward(x), v = v_proj.forward(x);  // (T, d_k) each

  Tensor scores = mul(matmul(q, transpose(k, 0, 1)), 1 / std::sqrt(double(d_k)));  // (T, T)
  Tensor masked = masked_fill(scores, causal_mask(T), -INFINITY);  // key j > query i: hidden
  Tensor weights = softmax(masked, -1);                    // each row sums to 1
  Tensor out = matmul(weights, v);                         // (T, d_k)

  fmt::print("weights =\n{}\n", weights);
  fmt::print("out shape ({}, {})\n", out.size(0), out.size(1));
}
