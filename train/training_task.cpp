#include "train/training_task.h"

#include "train/registry/registry.h"
#include "train/seq2seq_task.h"
#include "train/sequence_task.h"

namespace tg::train {

std::unique_ptr<TrainingTask> make_training_task(const TrainConfig& config) {
  validate(config);  // before any data is read or model built: a bad field is named first
  if (arch_named(config.arch).decodes_sequences) return std::make_unique<Seq2SeqTask>(config);
  return std::make_unique<SequenceTask>(config, make_task_data(config));
}

}  // namespace tg::train
