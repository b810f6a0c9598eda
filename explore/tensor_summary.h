#pragma once
// A tensor's values as the explorer's page shows them: a heatmap of rows x cols, where the
// last dimension gives the columns and all others are flattened into the rows
//   (B,NH,T,S) -> rows B*NH*T, cols S;   (C,) -> 1 row;   () -> 1 x 1
// A tensor with at most max_side rows and columns is kept exactly; a larger one is summarised
// by a grid of at most max_side x max_side block means (its min, max and mean stay exact), so
// that a trained model's page stays small.
//
// JSON: {"shape": [..], "dtype": "float32", "rows": R, "cols": C, "min", "max", "mean",
//        "finite", "neg_inf", "pos_inf", "nan": how many values of each kind,
//        "exact": bool, "grid_rows", "grid_cols", "values": [grid_rows * grid_cols, row-major]}
// A non-finite value is written as the string "-Infinity", "Infinity" or "NaN" (JSON has no
// such numbers; JavaScript's Number() reads these); min, max and mean are over the finite values
// (null when there are none), and the page says how many values they leave out (a masked score's
// -inf, say).
#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/tensor.h"

namespace tg::explore {

inline constexpr int64_t kMaxHeatmapSide = 64;

nlohmann::json summarize(const Tensor& t, int64_t max_side = kMaxHeatmapSide);

// x as JSON, whole: a number, or "NaN", "Infinity", "-Infinity" as above.
nlohmann::json json_number(double x);

}  // namespace tg::explore
