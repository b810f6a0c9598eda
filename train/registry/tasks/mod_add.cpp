// task mod_add (data/tasks.h): "a+b=" -> (a + b) mod --modulus, a label per answer digit.
#include "train/registry/tasks/synthetic_task.h"

namespace tg::train {

Task mod_add_task() { return synthetic_task(data::TaskKind::mod_add, "mod_add", {"modulus"}); }

}  // namespace tg::train
