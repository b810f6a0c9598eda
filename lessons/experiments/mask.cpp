// Experiment mask: what the fill value of masked scores lets through.
// T=5 tokens, left-padded: key 0 is padding, and the mask is causal as well, so
//   masked(i, j) = j > i or j == 0;  query 0 (the pad) has every key masked.
// For each fill (-inf, -1e9, -1e4, -10, 0): weights = softmax(masked_fill(q k^T / sqrt(d_k), mask, fill)),
// out = weights v, and measured:
//   masked weight      the largest weight a real query (1..T-1) gives a masked key
//   pad-query weight   the weights' sum of query 0, whose keys are all masked (-inf: 0 in tapegrad,
//                      NaN in PyTorch; a finite fill: 1, spread over keys it must not see)
//   output change      max |out - out(-inf)| over the real queries
//   hidden-value grad  the largest |d out_1 / d v_j| over the keys query 1 must not see (j = 0, j >= 2)
#include <cmath>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "lessons/experiments/experiment.h"
#include "lessons/values.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t T = 5, dk = 4;

bool hidden(int64_t query, int64_t key) { return key > query || key == 0; }

Tensor left_padded_causal_mask() {  // bool (T,T), true = masked out
  std::vector<bool> m(T * T);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) m[i * T + j] = hidden(i, j);
  return tensor_bool(m, {T, T});
}

struct Run {
  Tensor weights, out;  // (T,T), (T,dk)
  std::vector<double> dv;  // d out_1 / d v, (T,dk) row-major
};

Run attend(const Tensor& q, const Tensor& k, const Tensor& v_values, double fill) {
  Tensor v = v_values.detach().requires_grad_();
  Tensor scores = mul(matmul(q, transpose(k, 0, 1)), 1 / std::sqrt(double(dk)));
  Tensor weights = softmax(masked_fill(scores, left_padded_causal_mask(), fill), -1);
  Tensor out = matmul(weights, v);
  sum(slice(out, 0, 1, 2)).backward();
  return {weights.detach(), out.detach(), values(v.grad())};
}
}  // namespace

ExperimentResult mask_experiment(const ExperimentOptions& options) {
  Generator gen(options.seed);
  Tensor q = randn({T, dk}, kF32, kCPU, gen), k = randn({T, dk}, kF32, kCPU, gen);
  Tensor v = randn({T, dk}, kF32, kCPU, gen);
  const std::vector<std::pair<std::string, double>> fills = {
      {"-inf", -INFINITY}, {"-1e9", -1e9}, {"-1e4", -1e4}, {"-10", -10}, {"0", 0}};

  ExperimentResult r;
  r.table.columns = {"fill", "masked weight", "pad-query weight", "output change", "hidden-value grad"};
  Panel leaks{"What leaks through the mask", "fill value of masked scores", "largest leak (log scale)", false, true, {},
              {{"weight on a masked key", {}, {}}, {"output change", {}, {}}, {"gradient to a hidden value", {}, {}}}};
  const Run reference = attend(q, k, v, -INFINITY);
  for (size_t f = 0; f < fills.size(); ++f) {
    const Run run = attend(q, k, v, fills[f].second);
    std::vector<double> w = values(run.weights), out = values(run.out), ref = values(reference.out);
    double masked_weight = 0, pad_weight = 0, output_change = 0, hidden_grad = 0;
    for (int64_t j = 0; j < T; ++j) pad_weight += w[j];
    for (int64_t i = 1; i < T; ++i)
      for (int64_t j = 0; j < T; ++j)
        if (hidden(i, j)) masked_weight = std::max(masked_weight, w[i * T + j]);
    for (int64_t i = 1; i < T; ++i)
      for (int64_t c = 0; c < dk; ++c) output_change = std::max(output_change, std::abs(out[i * dk + c] - ref[i * dk + c]));
    for (int64_t j = 0; j < T; ++j)
      for (int64_t c = 0; c < dk && hidden(1, j); ++c) hidden_grad = std::max(hidden_grad, std::abs(run.dv[j * dk + c]));
    r.table.labels.push_back(fills[f].first);
    r.table.rows.push_back({masked_weight, pad_weight, output_change, hidden_grad});
    leaks.x_labels.push_back(fills[f].first);
    for (auto [s, value] : {std::pair{0, masked_weight}, std::pair{1, output_change}, std::pair{2, hidden_grad}})
      leaks.series[s].x.push_back(double(f)), leaks.series[s].y.push_back(value);
  }
  r.figure = {"Masking with -inf, large negatives and 0", {leaks}};
  r.notes = {
      "-inf leaks nothing: masked weights are exactly 0, and so is every gradient to a hidden value.",
      "In float32, -1e9 and -1e4 also underflow to exactly 0 for a real query, but the all-masked pad query then "
      "spreads its weight (sum 1) uniformly over keys it must not see; -inf gives it 0 weights (tapegrad) instead.",
      "-10 leaks about exp(-10) of the weight, and 0 (forgetting the mask) lets the future in fully."};
  return r;
}

}  // namespace tg::lessons
