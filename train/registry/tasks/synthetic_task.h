#pragma once
// The synthetic per-position tasks (data/tasks.h: copy, reverse, sort, mod_add) share their
// description but for the kind, the summary and the fields they read.
#include <string>
#include <vector>

#include "data/tasks.h"
#include "train/registry/task.h"

namespace tg::train {

Task synthetic_task(data::TaskKind kind, std::string summary, std::vector<std::string> reads);

}  // namespace tg::train
