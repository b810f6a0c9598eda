#pragma once
// The shipped sequence-to-sequence tasks (data/seq2seq_tasks.h: addition, number_words,
// sort_unique) share their description but for the kind, the summary and the fields they read.
#include <string>
#include <vector>

#include "data/seq2seq_tasks.h"
#include "train/registry/task.h"

namespace tg::train {

Task drawn_pairs_task(data::Seq2SeqTaskKind kind, std::string summary, std::vector<std::string> reads);

}  // namespace tg::train
