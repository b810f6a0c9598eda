// task sort_unique (data/seq2seq_tasks.h): "3130" -> "013", inputs of --min-len to --max-len digits.
#include "train/registry/tasks/drawn_pairs_task.h"

namespace tg::train {

Task sort_unique_task() {
  return drawn_pairs_task(data::Seq2SeqTaskKind::sort_unique, "sort_unique", {"min_len", "max_len"});
}

}  // namespace tg::train
