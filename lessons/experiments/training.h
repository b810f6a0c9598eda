#pragma once
// One small training run for the init and heads experiments: the Trainer of train/, silent and
// writing no files, with the training loss of every step kept. Internal to the experiments.
#include <functional>
#include <vector>

#include "train/config.h"
#include "train/model.h"
#include "train/report.h"

namespace tg::lessons {

struct TrainingRun {
  std::vector<double> steps, losses;  // the training loss of every update
  train::EvalMetrics eval;            // on the validation set after the last step
};

// The experiments' model and task: reverse (1-8 digits), 2 pre-LN layers of d_model 32, ff 64,
// batches of 32, evaluated once at the end on 256 validation sequences.
train::TrainConfig small_config(int64_t steps, uint64_t seed);

// Trains `config`; `reinit`, when set, redraws the model's weights before the first step.
TrainingRun train_small(const train::TrainConfig& config,
                        const std::function<void(train::TransformerModel&)>& reinit = {});

}  // namespace tg::lessons
