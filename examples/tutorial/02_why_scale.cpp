// docs/tutorial.md, "Why 1/sqrt(d_k)": the spread of q.k and the saturation of softmax, measured.
#include <tapegrad.h>

#include <cmath>

int main() {
  using namespace tg;
  manual_seed(0);
  const int64_t queries = 64, keys = 512, d_k = 64;
  Tensor q = randn({queries, d_k}), k = randn({keys, d_k});  // unit-variance entries
  Tensor raw = matmul(q, transpose(k, 0, 1));                 // sum of 64 products: variance 64
  Tensor scaled = mul(raw, 1 / std::sqrt(double(d_k)));

  auto std_of = [](const Tensor& s) {
    Tensor centred = sub(s, mean(s).item());
    return std::sqrt(mean(mul(centred, centred)).item());
  };
  auto mean_max_prob = [](const Tensor& s) { return mean(max(softmax(s, -1), -1)).item(); };
  fmt::print("score std:          unscaled {:.2f}  scaled {:.2f}\n", std_of(raw), std_of(scaled));
  fmt::print("mean max-prob:      unscaled {:.3f} scaled {:.3f}  (uniform: {:.3f})\n", mean_max_prob(raw),
             mean_max_prob(scaled), 1.0 / keys);
}
