#pragma once
// Learning a byte-level BPE tokenizer (data/bpe_tokenizer.h) from a corpus: the corpus is cut
// into chunks (bpe_chunks) and each distinct chunk counted once; then, until the vocabulary is
// full, the most frequent adjacent pair of tokens is merged into a new token, ties going to the
// pair of smallest ids (first id, then second), so the result depends on the corpus alone.
// Pair counts are kept up to date as merges happen, touching only the chunks that hold the
// merged pair (never a rescan of the corpus). Training stops early when no pair occurs twice.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/bpe_tokenizer.h"

namespace tg::data {

struct BpeTrainOptions {
  int64_t vocab_size = 1024;                // bytes + merges + specials, in [256 + specials, kMaxVocab]
  std::vector<std::string> specials = {};   // declared after the merges ("<bos>")
};

// `texts`: the corpus's files (no chunk spans two).
BpeTokenizer train_bpe(const std::vector<std::string_view>& texts, const BpeTrainOptions& options);

}  // namespace tg::data
