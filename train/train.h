#pragma once
// The training layer (namespace tg::train): the model every task trains, the one Trainer of every
// arch (over a TrainingTask) with its checkpoints, resume and NaN guard, and text generation (with
// a key/value cache); the encoder-decoder (arch seq2seq) with its data, task and decoding (greedy,
// beam search).
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
#include "train/seq2seq_task.h"
#include "train/sequence_task.h"
#include "train/task_data.h"
#include "train/trainer.h"
#include "train/training_task.h"
