#pragma once
// The data of a training run, built from its TrainConfig: training and validation sets, what
// the ids mean, and what the model must be shaped like.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "data/example.h"
#include "data/tasks.h"
#include "data/text_tokens.h"
#include "data/vocab.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/model.h"

namespace tg::train {

struct TaskData {
  std::shared_ptr<const data::Dataset> train;
  std::shared_ptr<const data::Dataset> val;
  data::Vocab input_vocab;   // what the input ids mean
  data::Vocab output_vocab;  // what the class ids mean (input_vocab except for labelled files)
  int64_t max_len = 0;       // the longest example
  bool causal = false;       // the task's: a position sees only the positions before it (lm)
  bool shuffle = true;       // false where every training example is already a fresh draw
  std::vector<int64_t> unscored_classes;  // the config's ignore_tokens as output ids
  std::shared_ptr<const data::TextTokens> text;  // lm: the text's tokens, which the ids spell (null otherwise)
};

// Synthetic examples made on demand: example i is task.sample() from Generator(seed) at
// offset i * 2^20, so any index gives the same example on any machine and nothing is stored.
class SyntheticDataset : public data::Dataset {
 public:
  SyntheticDataset(data::SequenceTask task, int64_t size, uint64_t seed);
  int64_t size() const override { return size_; }
  data::Example get(int64_t index) const override;

 private:
  data::SequenceTask task_;
  int64_t size_;
  uint64_t seed_;
};

// The validation draws of the synthetic tasks (encoder and seq2seq) use the run's seed plus
// this, far from the training seed's counters.
inline constexpr uint64_t kValSeedOffset = 0x5eed'0000'0001ull;

// Reads the data files the config names (relative paths: in the run directory, config.out);
// errors name the file as looked for. The config's task (train/registry/task.h) makes the sets.
TaskData make_task_data(const TrainConfig& config);

// The tasks' makers (the fields the task sets; make_task_data the rest):
//   char_lm_task_data        lm: windows of block_size tokens of `data` or the grammar corpus
//   labelled_file_task_data  file: a labelled .tsv/.jsonl file, and val_data or a val_fraction share
//   synthetic_task_data      a fresh draw of `task` for every training index; val_examples others
TaskData char_lm_task_data(const TrainConfig& config);

// The most windows an evaluation reads of a token id file (its validation part, or the whole
// file that eval --data scores), evenly spaced: bounded, whatever the corpus's size.
inline constexpr int64_t kTokenFileEvalWindows = 2048;

// An lm run's text: its data file (read while unchanged: train/run_data.h) or, without one, the
// grammar corpus; `source` names it in messages.
struct LmText {
  std::string text;
  std::string source;
};
LmText lm_text(const TrainConfig& config);
TaskData labelled_file_task_data(const TrainConfig& config);
TaskData synthetic_task_data(const TrainConfig& config, const data::SequenceTask& task);

// The ids of `tokens` (TrainConfig::ignore_tokens) in `output_vocab`; a token it lacks throws
// naming it, since no target could ever be that token.
std::vector<int64_t> unscored_classes(const std::vector<std::string>& tokens, const data::Vocab& output_vocab);

// The tokens of an lm run's text: its characters (from its vocabulary), or its tokenizer file
// (read while unchanged: train/run_data.h), which must spell the checkpoint's vocabulary.
data::TextTokens run_text_tokens(const Checkpoint& checkpoint, const std::filesystem::path& run_dir);

// The model for this data and config.
ModelConfig model_config(const TrainConfig& config, const TaskData& data);

}  // namespace tg::train
