// Experiment init: the same model and task trained from three initialisations of every weight
// matrix (the Linear layers of attention, feed-forward and head; embeddings stay N(0,1)):
//   Xavier uniform  U(-b, b), b = sqrt(6 / (fan_in + fan_out))   (the default)
//   N(0,1)          std 1 whatever the width: activations grow with sqrt(fan_in) per layer
//   N(0,0.001^2)    too small: the signal through each Linear nearly vanishes
#include <cmath>

#include <fmt/format.h>

#include "lessons/experiments/experiment.h"
#include "lessons/experiments/training.h"
#include "nn/init.h"

namespace tg::lessons {

namespace {
// Redraws every 2-D parameter but the embedding with `draw`.
std::function<void(train::TransformerModel&)> redraw(std::function<void(const Tensor&, Generator&)> draw,
                                                     uint64_t seed) {
  return [draw, seed](train::TransformerModel& model) {
    Generator gen(seed);
    for (const auto& [name, p] : model.named_parameters())
      if (p.dim() == 2 && name.rfind("embedding", 0) != 0) draw(p, gen);
  };
}
}  // namespace

ExperimentResult init_experiment(const ExperimentOptions& options) {
  const std::vector<std::pair<std::string, std::function<void(const Tensor&, Generator&)>>> inits = {
      {"Xavier", [](const Tensor& p, Generator& g) { nn::init::xavier_uniform_(p, 1, g); }},
      {"N(0,1)", [](const Tensor& p, Generator& g) { nn::init::normal_(p, 0, 1, g); }},
      {"N(0,0.001^2)", [](const Tensor& p, Generator& g) { nn::init::normal_(p, 0, 1e-3, g); }},
  };
  const int64_t quarter = std::max<int64_t>(1, options.steps / 4);
  ExperimentResult r;
  r.table.columns = {"init", "loss step 1", fmt::format("loss step {}", quarter),
                     fmt::format("loss step {}", options.steps), "val loss", "val token acc"};
  Panel curves{"Training loss (reverse task)", "step", "cross-entropy", false, true, {}, {}};
  for (const auto& [name, draw] : inits) {
    TrainingRun run = train_small(small_config(options.steps, options.seed), redraw(draw, options.seed + 1));
    r.table.labels.push_back(name);
    r.table.rows.push_back({run.losses.front(), run.losses[quarter - 1], run.losses.back(), run.eval.loss,
                            run.eval.token_accuracy});
    curves.series.push_back({name, run.steps, run.losses});
  }
  r.figure = {"Initialisation of the weight matrices", {curves}};
  r.notes = {"Same data, model and optimizer (AdamW with warmup and clipping) for the three runs; only the "
             "weight matrices' initial values differ."};
  return r;
}

}  // namespace tg::lessons
