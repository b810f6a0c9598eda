// Experiment heads: the number of attention heads at a fixed d_model (32), so that more heads
// means narrower ones (head size 32, 16, 8, 4), on the reverse task after the same steps.
#include <cmath>

#include "lessons/experiments/experiment.h"
#include "lessons/experiments/training.h"

namespace tg::lessons {

ExperimentResult heads_experiment(const ExperimentOptions& options) {
  ExperimentResult r;
  r.table.columns = {"heads", "head size", "final train loss", "val loss", "val token acc", "val exact match"};
  Panel accuracy{"Validation accuracy", "heads (d_model 32)", "accuracy", true, false, {},
                 {{"token accuracy", {}, {}}, {"exact match", {}, {}}}};
  Panel curves{"Training loss (reverse task)", "step", "cross-entropy", false, true, {}, {}};
  for (int64_t heads : {1, 2, 4, 8}) {
    train::TrainConfig config = small_config(options.steps, options.seed);
    config.heads = heads;
    TrainingRun run = train_small(config);
    r.table.labels.push_back(std::to_string(heads));
    r.table.rows.push_back({double(config.d_model / heads), run.losses.back(), run.eval.loss,
                            run.eval.token_accuracy, run.eval.exact_match});
    accuracy.series[0].x.push_back(double(heads)), accuracy.series[0].y.push_back(run.eval.token_accuracy);
    accuracy.series[1].x.push_back(double(heads)), accuracy.series[1].y.push_back(run.eval.exact_match);
    curves.series.push_back({std::to_string(heads) + (heads == 1 ? " head" : " heads"), run.steps, run.losses});
  }
  r.figure = {"Heads at a fixed d_model", {accuracy, curves}};
  r.notes = {"Same data, steps and optimizer for every run; the parameter count is the same for every head count "
             "(the projections are E x E whatever the split)."};
  return r;
}

}  // namespace tg::lessons
