// task number_words (data/seq2seq_tasks.h): "three hundred four" -> "304".
#include "train/registry/tasks/drawn_pairs_task.h"

namespace tg::train {

Task number_words_task() { return drawn_pairs_task(data::Seq2SeqTaskKind::number_words, "number_words", {}); }

}  // namespace tg::train
