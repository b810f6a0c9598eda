#pragma once
// Experiments: measurements that reproduce (or contradict) the seeds' numeric claims, each a
// table of numbers and a figure. `tapegrad experiment NAME` prints the table and writes the
// figure as SVG (lessons/experiments/plot.h).
//   scaling  score std, softmax saturation and the scores' gradient vs d_k, scaled and unscaled
//   mask     -inf vs large negatives vs 0 for masked keys: what leaks into weights, outputs, grads
//   init     Xavier vs N(0,1) vs a too-small init: loss while training a shipped task
//   heads    1/2/4/8 heads at a fixed d_model on a shipped task: accuracy after N steps
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lessons/experiments/plot.h"

namespace tg::lessons {

struct ExperimentOptions {
  uint64_t seed = 0;
  int64_t steps = 0;    // init, heads: training steps per run (0 = the experiment's default)
  int64_t queries = 0;  // scaling: query rows per d_k (0 = the default)
};

struct Table {
  std::vector<std::string> columns;  // columns[0] names the row labels
  std::vector<std::string> labels;   // one per row
  std::vector<std::vector<double>> rows;  // columns.size() - 1 numbers per row
  double at(size_t row, std::string_view column) const;  // throws naming the column when there is none
  std::string str() const;  // aligned text, 4 significant digits
};

struct ExperimentResult {
  Table table;
  Figure figure;
  std::vector<std::string> notes;  // what the numbers show, one line each
};

struct Experiment {
  std::string name;
  std::string summary;
  int64_t default_steps;    // 0 where steps do not apply
  int64_t default_queries;  // 0 where queries do not apply
  ExperimentResult (*run)(const ExperimentOptions&);
};

const std::vector<Experiment>& experiments();
const Experiment* find_experiment(std::string_view name);
std::string experiment_names();  // "scaling, mask, init, heads"

// The experiment's options with its defaults filled in, checked: steps in [1, 100000], queries
// in [1, 4096] (a tg::Error naming the option otherwise).
ExperimentOptions resolved(const Experiment& experiment, ExperimentOptions options);

ExperimentResult scaling_experiment(const ExperimentOptions& options);
ExperimentResult mask_experiment(const ExperimentOptions& options);
ExperimentResult init_experiment(const ExperimentOptions& options);
ExperimentResult heads_experiment(const ExperimentOptions& options);

}  // namespace tg::lessons
