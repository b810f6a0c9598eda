#pragma once
// The training layer (namespace tg::train): the model every task trains, the Trainer with its
// checkpoints, resume and NaN guard, and text generation (with a key/value cache); the
// encoder-decoder (arch seq2seq) with its data, trainer and decoding (greedy, beam search).
#include "train/beam_search.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/eval_set.h"
#include "train/generate.h"
#include "train/kv_cache.h"
#include "train/model.h"
#include "train/report.h"
#include "train/seq2seq_data.h"
#include "train/seq2seq_decode.h"
#include "train/seq2seq_model.h"
#include "train/seq2seq_trainer.h"
#include "train/task_data.h"
#include "train/trainer.h"
