// task lm: a language model on --data (a UTF-8 text) or the built-in grammar corpus, in windows
// of --block-size tokens: characters, or a BPE --tokenizer's tokens; eval --data scores a text.
#include "train/registry/task.h"

namespace tg::train {

Task lm_task() {
  Task task;
  task.name = "lm";
  task.summary = "lm (character LM)";
  task.does = "models a text token by token";
  task.archs = {"encoder", "gpt"};
  task.reads = {"data", "val_fraction", "block_size", "tokenizer"};
  task.causal = true;
  task.text = true;
  task.data = char_lm_task_data;
  task.positions = [](const TrainConfig& c) { return std::optional(c.block_size); };
  task.score_file = text_file_set;
  return task;
}

}  // namespace tg::train
