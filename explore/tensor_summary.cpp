#include "explore/tensor_summary.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "core/grad_mode.h"
#include "ops/to/to.h"

namespace tg::explore {

namespace {

std::vector<double> values_of(const Tensor& t) {
  NoGradGuard no_grad;
  const Tensor host = to(to(t.detach(), kCPU), kF32);
  const std::vector<float> v = host.to_vector<float>();
  return {v.begin(), v.end()};
}

nlohmann::json number(double x) {  // 5 significant digits: what the page shows
  return std::isfinite(x) ? nlohmann::json(std::stod(fmt::format("{:.5g}", x))) : json_number(x);
}

}  // namespace

nlohmann::json json_number(double x) {
  if (std::isnan(x)) return "NaN";
  if (std::isinf(x)) return x > 0 ? "Infinity" : "-Infinity";
  return x;
}

nlohmann::json summarize(const Tensor& t, int64_t max_side) {
  const std::vector<double> v = values_of(t);
  const int64_t cols = t.dim() == 0 ? 1 : std::max<int64_t>(t.shape().back(), 1);
  const int64_t rows = t.numel() == 0 ? 0 : t.numel() / cols;
  const int64_t grid_rows = std::min(rows, max_side), grid_cols = std::min(cols, max_side);

  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  int64_t finite = 0, neg_inf = 0, pos_inf = 0, nan = 0;
  for (double x : v) {
    if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x), sum += x, ++finite;
    else if (std::isnan(x)) ++nan;
    else ++(x < 0 ? neg_inf : pos_inf);
  }

  // Cell (gr, gc) is the mean of rows [gr*rows/grid_rows, (gr+1)*rows/grid_rows) and likewise
  // for the columns: every value lands in exactly one cell.
  nlohmann::json grid = nlohmann::json::array();
  for (int64_t gr = 0; gr < grid_rows; ++gr)
    for (int64_t gc = 0; gc < grid_cols; ++gc) {
      double cell = 0;
      int64_t n = 0;
      for (int64_t r = gr * rows / grid_rows; r < (gr + 1) * rows / grid_rows; ++r)
        for (int64_t c = gc * cols / grid_cols; c < (gc + 1) * cols / grid_cols; ++c) cell += v[r * cols + c], ++n;
      grid.push_back(number(cell / static_cast<double>(n)));
    }
  std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
  return {{"shape", shape},
          {"dtype", std::string(dtype_name(t.dtype()))},
          {"rows", rows},
          {"cols", cols},
          {"min", finite ? number(lo) : nlohmann::json()},
          {"max", finite ? number(hi) : nlohmann::json()},
          {"mean", finite ? number(sum / static_cast<double>(finite)) : nlohmann::json()},
          {"finite", finite},
          {"neg_inf", neg_inf},
          {"pos_inf", pos_inf},
          {"nan", nan},
          {"exact", grid_rows == rows && grid_cols == cols},
          {"grid_rows", grid_rows},
          {"grid_cols", grid_cols},
          {"values", std::move(grid)}};
}

}  // namespace tg::explore
