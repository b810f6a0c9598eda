#pragma once
// A run's byte-level BPE tokenizer: a --tokenizer file, or one the run learns.
//
// `train --tokenizer bpe --vocab-size N` learns it from the run's training text only, so that
// no validation byte shapes the tokens: for task lm the part of --data (or of the grammar
// corpus) before the validation share, for a seq2seq pair file both sides of its training
// pairs. It is written into the run directory as tokenizer.json, which the config then names
// with its SHA-256, as it names a --tokenizer file (train/run_data.h): eval, sample and
// --resume read it from there.
#include <cstdint>
#include <memory>

#include "data/text_tokens.h"
#include "train/config.h"

namespace tg::train {

inline constexpr const char* kLearnedTokenizer = "bpe";              // --tokenizer bpe
inline constexpr const char* kRunTokenizerFile = "tokenizer.json";  // in the run directory

inline constexpr int64_t kDefaultLearnedVocab = 1024;

// Learns the tokenizer, of vocab_size tokens (0: kDefaultLearnedVocab), from the text that
// config's data names (its hash recorded), and points config.tokenizer and tokenizer_sha256 at
// the file written.
void learn_run_tokenizer(TrainConfig& config, int64_t vocab_size);

// The tokenizer config.tokenizer names, read while unchanged (relative: in config.out).
std::shared_ptr<const data::TextTokens> run_bpe_tokens(const TrainConfig& config);

}  // namespace tg::train
