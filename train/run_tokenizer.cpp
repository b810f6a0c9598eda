#include "train/run_tokenizer.h"

#include <cmath>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "data/bpe_file.h"
#include "data/bpe_training.h"
#include "data/token_id_file.h"
#include "train/registry/registry.h"
#include "train/run_data.h"
#include "train/seq2seq_data.h"
#include "train/task_data.h"

namespace tg::train {

namespace {

// Both sides of a pair file's training pairs, each a text of its own.
data::BpeTokenizer learn_from_pairs(const TrainConfig& config, const data::BpeTrainOptions& options) {
  const FilePairs pairs = read_file_pairs(config);
  std::vector<std::string_view> texts;
  for (const data::Seq2SeqPair& pair : pairs.train) texts.insert(texts.end(), {pair.input, pair.output});
  return data::train_bpe(texts, options);
}

// The part of an lm run's text before its validation share.
data::BpeTokenizer learn_from_text(const TrainConfig& config, const data::BpeTrainOptions& options) {
  if (data::is_token_id_file(config.data))
    throw Error("config", fmt::format("--tokenizer {} learns from text, but data {} is a token id file: give the "
                                      "tokenizer that made it with --tokenizer", kLearnedTokenizer, config.data));
  const std::string text = lm_text(config).text;
  const auto held_out = static_cast<size_t>(std::llround(static_cast<double>(text.size()) * config.val_fraction));
  return data::train_bpe({std::string_view(text).substr(0, text.size() - held_out)}, options);
}

}  // namespace

void learn_run_tokenizer(TrainConfig& config, int64_t vocab_size) {
  const data::BpeTrainOptions options{.vocab_size = vocab_size > 0 ? vocab_size : kDefaultLearnedVocab};
  const data::BpeTokenizer tokenizer = arch_named(config.arch).decodes_sequences ? learn_from_pairs(config, options)
                                                                                : learn_from_text(config, options);
  std::filesystem::create_directories(config.out);
  data::save_bpe_tokenizer(tokenizer, std::filesystem::path(config.out) / kRunTokenizerFile);
  config.tokenizer = kRunTokenizerFile;
  record_data_hash(config, RunDataFile::tokenizer);
}

std::shared_ptr<const data::TextTokens> run_bpe_tokens(const TrainConfig& config) {
  return std::make_shared<const data::TextTokens>(std::make_shared<const data::BpeTokenizer>(
      data::load_bpe_tokenizer(open_run_data(config, RunDataFile::tokenizer))));
}

}  // namespace tg::train
