#pragma once
// Helpers for the nn tests.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "nn/nn.h"
#include "test_util.h"

namespace tg::test {

// Redraws every parameter of m from N(0, 0.5^2): the default zero biases and unit LayerNorm
// weights would hide mistakes in their gradients.
inline void randomize_parameters(nn::Module& m, uint64_t seed) {
  Generator gen(seed);
  for (const Tensor& p : m.parameters()) nn::init::normal_(p, 0, 0.5, gen);
}

// gradcheck of forward(inputs) through module m (already float64), checking the gradients of the
// inputs that require grad and of every parameter of m. The parameters are passed to gradcheck as
// further inputs and bound into m with functional_call, so the module differentiates into
// gradcheck's own copies.
inline void require_module_gradcheck(nn::Module& m, const std::vector<Tensor>& inputs,
                                     const std::function<Tensor(const std::vector<Tensor>&)>& forward) {
  const NamedTensors params = m.named_parameters();
  REQUIRE_FALSE(params.empty());
  std::vector<Tensor> all = inputs;
  int64_t elements = 0;
  for (const auto& [_, p] : params) all.push_back(p);
  for (const Tensor& t : all) elements += t.defined() && t.requires_grad() ? t.numel() : 0;
  auto fn = [&](const std::vector<Tensor>& work) {
    NamedTensors bound;
    for (size_t i = 0; i < params.size(); ++i) bound.emplace_back(params[i].first, work[inputs.size() + i]);
    const std::vector<Tensor> xs(work.begin(), work.begin() + static_cast<std::ptrdiff_t>(inputs.size()));
    return m.functional_call(bound, [&] { return forward(xs); });
  };
  GradcheckResult r = gradcheck(fn, all);
  INFO(r.report);
  REQUIRE(r.ok);
  CHECK(r.checked == elements);
}

inline std::vector<std::string> names_of(const NamedTensors& named) {
  std::vector<std::string> names;
  for (const auto& [name, _] : named) names.push_back(name);
  return names;
}

// The largest |a - b| over all elements (same shape); NaN if any element differs by NaN.
inline double max_abs_diff(const Tensor& a, const Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  std::vector<double> x = to_dtype_copy(a, kF64).to_vector<double>(), y = to_dtype_copy(b, kF64).to_vector<double>();
  double worst = 0;
  for (size_t i = 0; i < x.size(); ++i)
    if (double d = std::abs(x[i] - y[i]); !(d <= worst)) worst = d;  // NaN propagates
  return worst;
}

}  // namespace tg::test
