// A Hessian-vector product of a small Transformer layer's loss with respect to all of its
// parameters (tg::hvp: a backward of a backward), checked against finite differences of
// gradients: H v ~ (g(p + eps v) - g(p - eps v)) / (2 eps). Exits 1 when they disagree.
#include <tapegrad.h>

#include <cmath>

int main() {
  using namespace tg;
  manual_seed(0);
  nn::EncoderLayer layer(/*d_model=*/8, /*nhead=*/2, /*dim_feedforward=*/16, /*dropout=*/0.0);
  layer.to_(kF64);
  const Tensor x = randn({2, 5, 8}, kF64), target = randn({2, 5, 8}, kF64);  // (B,T,E)

  std::vector<std::string> names;
  TensorList params, v;
  for (const auto& [name, p] : layer.named_parameters()) {
    names.push_back(name);
    params.push_back(p.detach());
    v.push_back(randn(p.shape(), kF64));
  }
  // The loss as a function of the parameters: the layer run with them in place of its own.
  auto loss_of = [&](const TensorList& ps) {
    NamedTensors bound;
    for (size_t i = 0; i < ps.size(); ++i) bound.emplace_back(names[i], ps[i]);
    return layer.functional_call(bound, [&] {
      Tensor d = sub(layer.forward(x), target);
      return mean(mul(d, d));
    });
  };

  auto [loss, hv] = hvp(loss_of, params, v);

  const double eps = 1e-5;
  auto gradients_at = [&](double step) {
    TensorList moved;
    for (size_t i = 0; i < params.size(); ++i) moved.push_back(add(params[i], mul(v[i], step)));
    return vjp(loss_of, moved, ones({}, kF64)).second;
  };
  const TensorList plus = gradients_at(eps), minus = gradients_at(-eps);
  double worst = 0, scale = 0;
  int64_t count = 0;
  for (size_t i = 0; i < params.size(); ++i) {
    const std::vector<double> h = hv[i].to_vector<double>(), p = plus[i].to_vector<double>(),
                              m = minus[i].to_vector<double>();
    for (size_t k = 0; k < h.size(); ++k) {
      worst = std::max(worst, std::abs(h[k] - (p[k] - m[k]) / (2 * eps)));
      scale = std::max(scale, std::abs(h[k]));
    }
    count += static_cast<int64_t>(h.size());
  }
  const bool ok = worst <= 1e-6 * std::max(scale, 1.0);
  fmt::print("loss {:.6f}; H v over {} parameters in {} tensors: largest |H v| {:.4g}, largest difference from "
             "finite differences of gradients {:.3g}: {}\n",
             loss.item(), count, params.size(), scale, worst, ok ? "agree" : "DISAGREE");
  return ok ? 0 : 1;
}
