#include "lessons/experiments/training.h"

#include <algorithm>

#include "train/sequence_task.h"
#include "train/trainer.h"

namespace tg::lessons {

train::TrainConfig small_config(int64_t steps, uint64_t seed) {
  train::TrainConfig c;
  c.task = "reverse";
  c.val_examples = 256;
  c.d_model = 32, c.heads = 4, c.layers = 2, c.ff = 64;
  c.steps = steps, c.batch_size = 32, c.warmup = std::min<int64_t>(20, steps / 10);
  c.eval_every = 0;
  c.seed = seed;
  return c;
}

TrainingRun train_small(const train::TrainConfig& config,
                        const std::function<void(train::TransformerModel&)>& reinit) {
  train::Trainer trainer(config, {.console = nullptr, .write_files = false});
  if (reinit) reinit(trainer.task_as<train::SequenceTask>().model());
  TrainingRun run;
  trainer.on_step = [&run](const train::StepMetrics& m) {
    run.steps.push_back(double(m.step));
    run.losses.push_back(m.loss);
  };
  run.eval = trainer.fit().eval;
  return run;
}

}  // namespace tg::lessons
