#include "train/run_tokenizer.h"

#include <cmath>
#include <filesystem>
#include <string>

#include "data/bpe_file.h"
#include "data/bpe_training.h"
#include "data/grammar_corpus.h"
#include "data/text.h"
#include "train/run_data.h"

namespace tg::train {

void learn_run_tokenizer(TrainConfig& config, int64_t vocab_size) {
  const std::string text =
      config.data.empty() ? data::grammar_corpus() : data::read_text_file(open_run_data(config, RunDataFile::data));
  const auto held_out = static_cast<size_t>(std::llround(static_cast<double>(text.size()) * config.val_fraction));
  const std::string_view training_text = std::string_view(text).substr(0, text.size() - held_out);
  const data::BpeTokenizer tokenizer =
      data::train_bpe({training_text}, {.vocab_size = vocab_size > 0 ? vocab_size : kDefaultLearnedVocab});
  std::filesystem::create_directories(config.out);
  data::save_bpe_tokenizer(tokenizer, std::filesystem::path(config.out) / kRunTokenizerFile);
  config.tokenizer = kRunTokenizerFile;
  record_data_hash(config, RunDataFile::tokenizer);
}

}  // namespace tg::train
