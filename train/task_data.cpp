#include "train/task_data.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "data/bpe_file.h"
#include "data/char_lm.h"
#include "data/grammar_corpus.h"
#include "data/labelled_file.h"
#include "data/random.h"
#include "data/text.h"
#include "data/token_windows.h"
#include "train/registry/registry.h"
#include "train/run_data.h"
#include "train/run_tokenizer.h"

namespace tg::train {

namespace {

static_assert(data::kMaxLabelledTokens == kMaxSequenceLength, "a labelled file's lines fit a model");

}  // namespace

SyntheticDataset::SyntheticDataset(data::SequenceTask task, int64_t size, uint64_t seed)
    : task_(std::move(task)), size_(size), seed_(seed) {
  if (size < 0) throw Error("SyntheticDataset", fmt::format("size must be >= 0, got {}", size));
}

data::Example SyntheticDataset::get(int64_t index) const {
  if (index < 0 || index >= size_)
    throw Error("SyntheticDataset", fmt::format("index {} out of range [0, {})", index, size_));
  Generator gen(seed_);
  gen.set_state(seed_, static_cast<uint64_t>(index) << data::kCountersPerExample);
  return task_.sample(gen);
}

namespace {

// lm on a token id file, memory-mapped (data/token_windows.h): training example i is a random
// window, as nanoGPT draws them, so an epoch is kMaxExamples of them whatever the run's length
// (a resumed run with more steps reads on where it stopped); evaluation reads at most
// kTokenFileEvalWindows windows of the validation part, evenly spaced.

TaskData token_id_file_task_data(const TrainConfig& c) {
  if (c.tokenizer.empty())
    throw Error("config", fmt::format("data {} is a token id file: it needs --tokenizer, the tokenizer that made it",
                                      c.data));
  const auto tokens = run_bpe_tokens(c);
  const data::BpeTokenizer& bpe = *tokens->bpe();
  const data::TokenWindowSets windows = data::token_id_file_windows(
      open_run_data(c, RunDataFile::data).path(), data::bpe_sha256(bpe), bpe.vocab_size(), data::kNumReserved,
      c.block_size, c.val_fraction, kMaxExamples, kTokenFileEvalWindows, c.seed);
  TaskData d;
  d.train = windows.train;
  d.val = windows.val;
  d.input_vocab = d.output_vocab = tokens->vocab();
  d.max_len = c.block_size;
  d.shuffle = false;  // every training window is already a random draw
  d.text = tokens;
  return d;
}

}  // namespace

LmText lm_text(const TrainConfig& c) {
  if (c.data.empty()) return {data::grammar_corpus(), "grammar corpus"};
  return {data::read_text_file(open_run_data(c, RunDataFile::data)), path_in_run(c.data, c.out).string()};
}

TaskData char_lm_task_data(const TrainConfig& c) {
  if (data::is_token_id_file(c.data)) return token_id_file_task_data(c);
  // Training windows start at every token; validation windows do not overlap, so that an
  // evaluation reads each held-out token once.
  const LmText text = lm_text(c);
  const auto tokens =
      c.tokenizer.empty()
          ? std::make_shared<const data::TextTokens>(data::CharTokenizer::from_text(text.text, text.source))
          : run_bpe_tokens(c);
  const data::LMWindows windows =
      data::lm_windows(std::make_shared<const std::vector<int32_t>>(tokens->encode(text.text, text.source)),
                       c.block_size, c.val_fraction, 1, text.source, tokens->unit());
  TaskData d;
  d.train = windows.train;
  d.val = windows.val->with_stride(c.block_size);
  d.input_vocab = d.output_vocab = tokens->vocab();
  d.max_len = c.block_size;
  d.text = tokens;
  return d;
}

TaskData labelled_file_task_data(const TrainConfig& c) {
  const InputFile file = open_run_data(c, RunDataFile::data);
  data::LabelledTask task = c.val_data.empty()
                                ? data::load_labelled_task(file, c.val_fraction, c.seed)
                                : data::load_labelled_task(file, open_run_data(c, RunDataFile::val_data));
  if (task.val.empty())
    throw Error("config", fmt::format("{}: too few examples to hold out a validation set (val_fraction {})",
                                      file.path().string(), c.val_fraction));
  TaskData d;
  for (const auto* part : {&task.train, &task.val})
    for (const data::Example& ex : *part) d.max_len = std::max<int64_t>(d.max_len, std::ssize(ex.input));
  d.train = std::make_shared<data::ExampleDataset>(std::move(task.train));
  d.val = std::make_shared<data::ExampleDataset>(std::move(task.val));
  d.input_vocab = std::move(task.input_vocab);
  d.output_vocab = std::move(task.output_vocab);
  return d;
}

TaskData synthetic_task_data(const TrainConfig& c, const data::SequenceTask& task) {
  TaskData d;
  const int64_t train_size = c.steps * c.batch_size * c.grad_accum;
  d.train = std::make_shared<SyntheticDataset>(task, train_size, c.seed);
  d.val = std::make_shared<SyntheticDataset>(task, c.val_examples, c.seed + kValSeedOffset);
  d.input_vocab = d.output_vocab = task.tokenizer().vocab();
  d.max_len = task.max_length();
  d.shuffle = false;
  return d;
}

TaskData make_task_data(const TrainConfig& c) {
  validate(c);
  const Task& task = task_named(c.task);
  TaskData d = task.data(c);
  d.causal = task.causal;
  if (d.train->size() == 0 || d.val->size() == 0)
    throw Error("config", fmt::format("task {}: the training or validation set is empty", c.task));
  d.unscored_classes = unscored_classes(c.ignore_tokens, d.output_vocab);
  return d;
}

data::TextTokens run_text_tokens(const Checkpoint& checkpoint, const std::filesystem::path& run_dir) {
  if (checkpoint.config.tokenizer.empty()) return data::TextTokens(data::CharTokenizer(checkpoint.input_vocab));
  TrainConfig config = checkpoint.config;
  config.out = run_dir.string();
  const data::TextTokens tokens = *run_bpe_tokens(config);
  if (tokens.vocab() != checkpoint.input_vocab)
    throw Error("tokenizer", fmt::format("{}: its {} tokens are not the model's {}", config.tokenizer,
                                         tokens.vocab().size(), checkpoint.input_vocab.size()));
  return tokens;
}

ModelConfig model_config(const TrainConfig& c, const TaskData& d) {
  return {.vocab_size = d.input_vocab.size(),
          .num_classes = d.output_vocab.size(),
          .max_len = d.max_len,
          .d_model = c.d_model,
          .heads = c.heads,
          .layers = c.layers,
          .ff = c.ff,
          .dropout = c.dropout,
          .causal = d.causal,
          .arch = c.arch,
          .tie_weights = c.tie_weights,
          .numerics = c.numerics};
}

std::vector<int64_t> unscored_classes(const std::vector<std::string>& tokens, const data::Vocab& output_vocab) {
  std::vector<int64_t> ids;
  for (const std::string& token : tokens) {
    if (!output_vocab.contains(token)) {
      constexpr int64_t kShown = 8;
      std::vector<std::string> known;
      for (int64_t id = data::kNumReserved; id < std::min(output_vocab.size(), data::kNumReserved + kShown); ++id)
        known.push_back(data::escape_token(output_vocab.token(id)));
      throw Error("ignore_tokens", fmt::format("\"{}\" is not an output token of the model (its {} output tokens: "
                                               "{}{})", data::escape_token(token), output_vocab.size() - data::kNumReserved,
                                               fmt::join(known, " "),
                                               output_vocab.size() > data::kNumReserved + kShown ? " ..." : ""));
    }
    ids.push_back(output_vocab.id(token));
  }
  return ids;
}

}  // namespace tg::train
