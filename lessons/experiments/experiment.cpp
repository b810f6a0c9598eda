#include "lessons/experiments/experiment.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace tg::lessons {

double Table::at(size_t row, std::string_view column) const {
  for (size_t c = 1; c < columns.size(); ++c)
    if (columns[c] == column) return rows.at(row).at(c - 1);
  throw Error("experiment", fmt::format("the table has no column '{}'", column));
}

std::string Table::str() const {
  std::vector<std::vector<std::string>> cells = {columns};
  for (size_t r = 0; r < rows.size(); ++r) {
    cells.push_back({labels[r]});
    for (double v : rows[r]) cells.back().push_back(fmt::format("{:.4g}", v));
  }
  std::vector<size_t> width(columns.size(), 0);
  for (const auto& line : cells)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  std::string out;
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c)
      out += c == 0 ? fmt::format("{:<{}}", line[c], width[c]) : fmt::format("  {:>{}}", line[c], width[c]);
    out += "\n";
  }
  return out;
}

const std::vector<Experiment>& experiments() {
  static const std::vector<Experiment> all = {
      {"scaling", "score std, softmax saturation and the scores' gradient vs d_k, with and without 1/sqrt(d_k)", 0,
       64, scaling_experiment},
      {"mask", "-inf vs -1e9 vs -1e4 vs -10 vs 0 for masked keys: what leaks into weights, outputs and gradients", 0,
       0, mask_experiment},
      {"init", "Xavier vs N(0,1) vs N(0,0.001^2) weights: loss while training the reverse task", 200, 0,
       init_experiment},
      {"heads", "1, 2, 4 and 8 heads at d_model 32: accuracy on the reverse task after N steps", 200, 0,
       heads_experiment},
  };
  return all;
}

const Experiment* find_experiment(std::string_view name) {
  for (const Experiment& e : experiments())
    if (e.name == name) return &e;
  return nullptr;
}

std::string experiment_names() {
  std::vector<std::string_view> names;
  for (const Experiment& e : experiments()) names.push_back(e.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

ExperimentOptions resolved(const Experiment& experiment, ExperimentOptions options) {
  if (options.steps == 0) options.steps = experiment.default_steps;
  if (options.queries == 0) options.queries = experiment.default_queries;
  if (experiment.default_steps > 0 && (options.steps < 1 || options.steps > 100000))
    throw Error("experiment", fmt::format("--steps must be in [1, 100000], got {}", options.steps));
  if (experiment.default_queries > 0 && (options.queries < 1 || options.queries > 4096))
    throw Error("experiment", fmt::format("--queries must be in [1, 4096], got {}", options.queries));
  return options;
}

}  // namespace tg::lessons
