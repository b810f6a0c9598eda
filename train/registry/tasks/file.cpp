// task file: the user's data, --data (and --val-data): per-position labels (data/labelled_file.h)
// for a per-position arch, input/output pairs (data/seq2seq_file.h) for an encoder-decoder.
#include "train/registry/task.h"

namespace tg::train {

Task file_task() {
  Task task;
  task.name = "file";
  task.summary = "file (--data: labelled .tsv/.jsonl; seq2seq: pairs)";
  task.does = "reads its examples from a file";
  task.archs = {"encoder", "seq2seq"};
  task.reads = {"data", "val_data", "val_fraction", "token_sep", "tokenizer"};
  task.required_data = "path.tsv or path.jsonl";
  task.data = labelled_file_task_data;
  task.pairs = pairs_from_file;
  task.score_file = labelled_file_set;
  return task;
}

}  // namespace tg::train
