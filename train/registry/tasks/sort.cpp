// task sort (data/tasks.h): sort a sequence of 1-8 digits (--min-len, --max-len), a label per position.
#include "train/registry/tasks/synthetic_task.h"

namespace tg::train {

Task sort_task() { return synthetic_task(data::TaskKind::sort, "sort", {"min_len", "max_len"}); }

}  // namespace tg::train
