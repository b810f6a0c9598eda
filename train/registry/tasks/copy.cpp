// task copy (data/tasks.h): copy a sequence of 1-8 digits (--min-len, --max-len), a label per position.
#include "train/registry/tasks/synthetic_task.h"

namespace tg::train {

Task copy_task() { return synthetic_task(data::TaskKind::copy, "copy", {"min_len", "max_len"}); }

}  // namespace tg::train
