// task addition (data/seq2seq_tasks.h): "12+345" -> "357".
#include "train/registry/tasks/drawn_pairs_task.h"

namespace tg::train {

Task addition_task() { return drawn_pairs_task(data::Seq2SeqTaskKind::addition, "addition", {}); }

}  // namespace tg::train
