// task reverse (data/tasks.h): reverse a sequence of 1-8 digits (--min-len, --max-len), a label per position.
#include "train/registry/tasks/synthetic_task.h"

namespace tg::train {

Task reverse_task() { return synthetic_task(data::TaskKind::reverse, "reverse", {"min_len", "max_len"}); }

}  // namespace tg::train
