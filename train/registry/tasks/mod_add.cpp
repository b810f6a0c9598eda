// task mod_add (data/tasks.h): "a+b=" -> (a + b) mod --modulus, a label per answer digit.
#include "train/registry/tasks/sequence_task.h"

namespace tg::train {

Task mod_add_task() { return sequence_task(data::TaskKind::mod_add, "mod_add", {"modulus"}); }

}  // namespace tg::train
