#include "train/eval_set.h"

#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "data/bpe_file.h"
#include "data/char_lm.h"
#include "data/char_tokenizer.h"
#include "data/labelled_file.h"
#include "data/text.h"
#include "data/token_id_file.h"
#include "data/token_windows.h"
#include "train/registry/registry.h"
#include "train/run_data.h"
#include "train/task_data.h"

namespace tg::train {

namespace {

constexpr const char* kEvalSetOp = "eval";

}  // namespace

EvalSet labelled_file_set(const Checkpoint& c, const std::filesystem::path&, const InputFile& file) {
  const std::string path = file.path().string();
  const std::vector<data::TokenPair> pairs = data::read_labelled_file(file);
  for (size_t i = 0; i < pairs.size(); ++i)
    if (std::ssize(pairs[i].input) > c.model_config.max_len)
      throw Error(kEvalSetOp, fmt::format("{}:{}: {} tokens, more than the model's maximum of {} (its longest training "
                                   "example)", path, i + 1, pairs[i].input.size(), c.model_config.max_len));
  std::vector<data::Example> examples = data::encode_labelled(pairs, c.input_vocab, c.output_vocab, path);
  return {std::make_shared<data::ExampleDataset>(std::move(examples)), path + " (every line)", true, nullptr};
}

namespace {

// A token id file made by the run's tokenizer: at most kTokenFileEvalWindows windows, evenly spaced.
EvalSet token_id_file_set(const Checkpoint& c, std::shared_ptr<const data::TextTokens> tokens,
                          const std::string& path) {
  const data::BpeTokenizer* bpe = tokens->bpe();
  if (!bpe)
    throw Error(kEvalSetOp, fmt::format("{} is a token id file, but the run was trained on characters (no --tokenizer)",
                                 path));
  auto windows = data::token_id_file_scoring_windows(path, data::bpe_sha256(*bpe), bpe->vocab_size(),
                                                     data::kNumReserved, c.model_config.max_len,
                                                     kTokenFileEvalWindows);
  const std::string name = fmt::format("{} ({} windows, evenly spaced)", path, windows->size());
  return {std::move(windows), name, false, std::move(tokens)};
}

}  // namespace

// Windows of max_len tokens side by side, each predicting the tokens one further on; a token id
// file (.bin) is read memory-mapped, as training reads it.
EvalSet text_file_set(const Checkpoint& c, const std::filesystem::path& run_dir, const InputFile& file) {
  const std::string path = file.path().string();
  auto tokens = std::make_shared<const data::TextTokens>(run_text_tokens(c, run_dir));
  if (data::is_token_id_file(path)) return token_id_file_set(c, std::move(tokens), path);
  const auto ids = std::make_shared<const std::vector<int32_t>>(tokens->encode(data::read_text_file(file), path));
  const int64_t block = c.model_config.max_len;
  auto windows = std::make_shared<data::CharLMDataset>(ids, 0, std::ssize(*ids), block, block);
  if (windows->size() == 0)
    throw Error(kEvalSetOp, fmt::format("{}: {} {} are too few for one window of the model's {} (and the one after it)", path,
                                 ids->size(), tokens->unit(), block));
  return {std::move(windows), path + " (every window)", false, std::move(tokens)};
}

EvalSet validation_set(const Checkpoint& c, const std::filesystem::path& run_dir) {
  TrainConfig config = c.config;
  config.out = run_dir.string();
  if (!config.val_data.empty()) {
    EvalSet set = file_set(c, run_dir, open_run_data(config, RunDataFile::val_data));
    set.name = "validation set " + set.name;
    return set;
  }
  const TaskData d = make_task_data(config);
  if (d.input_vocab != c.input_vocab || d.output_vocab != c.output_vocab || model_config(config, d) != c.model_config)
    throw Error(kEvalSetOp, fmt::format("{}: the vocabulary or the longest example of {} differs from the checkpoint's (the "
                                 "file changed since training?); score a file with --data instead", run_dir.string(),
                                 path_in_run(config.data, run_dir).string()));
  return {d.val, "validation set", false, d.text};
}

EvalSet file_set(const Checkpoint& c, const std::filesystem::path& run_dir, const InputFile& file) {
  if (const Task& task = task_named(c.config.task); task.score_file) return task.score_file(c, run_dir, file);
  std::vector<std::string> reading;
  for (const Task& task : tasks())
    if (task.score_file) reading.push_back(task.name);
  throw Error(kEvalSetOp, fmt::format("task {} reads no data file (only {} do)", c.config.task, all_of(reading)));
}

EvalSet file_set(const Checkpoint& c, const std::filesystem::path& run_dir, const std::string& path) {
  return file_set(c, run_dir, InputFile("read_text_file", path));
}

}  // namespace tg::train
