#include "train/eval_set.h"

#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "data/char_lm.h"
#include "data/labelled_file.h"
#include "data/text.h"
#include "train/task_data.h"

namespace tg::train {

namespace {

constexpr const char* kOp = "eval";

EvalSet labelled_file_set(const Checkpoint& c, const std::string& path) {
  const std::vector<data::TokenPair> pairs = data::read_labelled_file(path);
  for (size_t i = 0; i < pairs.size(); ++i)
    if (std::ssize(pairs[i].input) > c.model_config.max_len)
      throw Error(kOp, fmt::format("{}:{}: {} tokens, more than the model's maximum of {} (its longest training "
                                   "example)", path, i + 1, pairs[i].input.size(), c.model_config.max_len));
  std::vector<data::Example> examples = data::encode_labelled(pairs, c.input_vocab, c.output_vocab, path);
  return {std::make_shared<data::ExampleDataset>(std::move(examples)), path + " (every line)", true};
}

// Windows of max_len characters side by side, each predicting the characters one further on.
EvalSet text_file_set(const Checkpoint& c, const std::string& path) {
  const std::vector<std::string> chars = data::utf8_chars(data::read_text_file(path), path);
  std::vector<int64_t> ids;
  ids.reserve(chars.size());
  int64_t line = 1;
  for (const std::string& ch : chars) {
    if (!c.input_vocab.contains(ch))
      throw Error(kOp, fmt::format("{}:{}: the character \"{}\" is not in the model's vocabulary (the {} characters "
                                   "of its training text)", path, line, data::escape_token(ch),
                                   c.input_vocab.size() - data::kNumReserved));
    ids.push_back(c.input_vocab.id(ch));
    line += ch == "\n";
  }
  const int64_t block = c.model_config.max_len;
  auto windows = std::make_shared<data::CharLMDataset>(std::move(ids), block, block);
  if (windows->size() == 0)
    throw Error(kOp, fmt::format("{}: {} characters are too few for one window of the model's {} (and the character "
                                 "after it)", path, chars.size(), block));
  return {std::move(windows), path + " (every window)", false};
}

}  // namespace

EvalSet validation_set(const Checkpoint& c, const std::filesystem::path& run_dir) {
  TrainConfig config = c.config;
  config.out = run_dir.string();
  if (!config.val_data.empty()) {
    EvalSet set = file_set(c, path_in_run(config.val_data, run_dir).string());
    set.name = "validation set " + set.name;
    return set;
  }
  const TaskData d = make_task_data(config);
  if (d.input_vocab != c.input_vocab || d.output_vocab != c.output_vocab || model_config(config, d) != c.model_config)
    throw Error(kOp, fmt::format("{}: the vocabulary or the longest example of {} differs from the checkpoint's (the "
                                 "file changed since training?); score a file with --data instead", run_dir.string(),
                                 path_in_run(config.data, run_dir).string()));
  return {d.val, "validation set", false};
}

EvalSet file_set(const Checkpoint& c, const std::string& path) {
  if (c.config.task == "file") return labelled_file_set(c, path);
  if (c.config.task == "lm") return text_file_set(c, path);
  throw Error(kOp, fmt::format("task {} reads no data file (only file and lm do)", c.config.task));
}

}  // namespace tg::train
