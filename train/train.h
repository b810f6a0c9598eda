#pragma once
// The training layer (namespace tg::train): the model every task trains, the Trainer with its
// checkpoints, resume and NaN guard, and text generation (with a key/value cache).
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/eval_set.h"
#include "train/generate.h"
#include "train/kv_cache.h"
#include "train/model.h"
#include "train/report.h"
#include "train/task_data.h"
#include "train/trainer.h"
