#include "train/registry/tasks/drawn_pairs_task.h"

#include <utility>

namespace tg::train {

namespace {

data::Seq2SeqTask drawn_pairs_from_config(data::Seq2SeqTaskKind kind, const TrainConfig& c) {
  return data::Seq2SeqTask(kind, {.min_len = c.min_len, .max_len = c.max_len});
}

}  // namespace

Task drawn_pairs_task(data::Seq2SeqTaskKind kind, std::string summary, std::vector<std::string> reads) {
  reads.push_back("val_examples");
  Task task;
  task.name = std::string(data::seq2seq_task_name(kind));
  task.summary = std::move(summary);
  task.does = "maps an input to an output of another length";
  task.archs = {"seq2seq"};
  task.reads = std::move(reads);
  task.pairs = [kind](const TrainConfig& c) { return drawn_pairs(c, drawn_pairs_from_config(kind, c)); };
  task.positions = [kind](const TrainConfig& c) {
    const data::Seq2SeqTask drawn = drawn_pairs_from_config(kind, c);
    return std::optional(seq2seq_positions(drawn.max_input_length(), drawn.max_output_length()));
  };
  return task;
}

}  // namespace tg::train
