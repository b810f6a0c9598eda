#pragma once
// `train --task lm --tokenizer bpe --vocab-size N`: a byte-level BPE tokenizer learned from the
// run's training text (the part of --data, or of the grammar corpus, before the validation
// share), so that no validation byte shapes the tokens. It is written into the run directory as
// tokenizer.json, which the config then names with its SHA-256, as it names a --tokenizer file
// (train/run_data.h): eval, sample and --resume read it from there.
#include <cstdint>

#include "train/config.h"

namespace tg::train {

inline constexpr const char* kLearnedTokenizer = "bpe";              // --tokenizer bpe
inline constexpr const char* kRunTokenizerFile = "tokenizer.json";  // in the run directory

inline constexpr int64_t kDefaultLearnedVocab = 1024;

// Learns the tokenizer, of vocab_size tokens (0: kDefaultLearnedVocab), from the text that
// config's data names (its hash recorded), and points config.tokenizer and tokenizer_sha256 at
// the file written.
void learn_run_tokenizer(TrainConfig& config, int64_t vocab_size);

}  // namespace tg::train
