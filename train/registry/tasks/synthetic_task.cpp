#include "train/registry/tasks/synthetic_task.h"

#include <utility>

namespace tg::train {

namespace {

data::SequenceTask from_config(data::TaskKind kind, const TrainConfig& c) {
  return data::SequenceTask(kind, {.min_len = c.min_len, .max_len = c.max_len, .modulus = c.modulus});
}

}  // namespace

Task synthetic_task(data::TaskKind kind, std::string summary, std::vector<std::string> reads) {
  reads.push_back("val_examples");
  Task task;
  task.name = std::string(data::task_name(kind));
  task.summary = std::move(summary);
  task.does = "labels each position of a sequence";
  task.archs = {"encoder"};
  task.reads = std::move(reads);
  task.data_sized_by_steps = true;
  task.data = [kind](const TrainConfig& c) { return synthetic_task_data(c, from_config(kind, c)); };
  task.positions = [kind](const TrainConfig& c) { return std::optional(from_config(kind, c).max_length()); };
  return task;
}

}  // namespace tg::train
