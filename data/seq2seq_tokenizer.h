#pragma once
// PairTokenizer: the tokens of a sequence-to-sequence run's text, and their ids. A run writes each
// input and output as text, in one of three forms, fixed by its token separator (TrainConfig's
// token_sep) and tokenizer:
//
//   characters   token_sep ""   "304"        -> 3 0 4          every shipped task, character pair files
//   words        token_sep " "  "three one"  -> three one      word-level pair files (data/seq2seq_file.h)
//   BPE          a tokenizer    "three one"  -> th ree _one    byte-level BPE (data/text_tokens.h), any bytes
//
// A word-level text is its tokens joined by the separator: splitting leaves out the empty pieces
// (runs of separators, one at either end), so decoding writes one separator between tokens and
// the text splits back into the same tokens. One vocabulary (data/vocab.h: the reserved tokens,
// then the tokens sorted by their bytes, which for characters is code point order) serves input
// and output; a BPE tokenizer's is its tokens' (data/text_tokens.h), which decode by joining
// their bytes.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "data/char_tokenizer.h"
#include "data/seq2seq_tasks.h"
#include "data/text_tokens.h"
#include "data/vocab.h"

namespace tg::data {

// The tokens of `text`: its characters (UTF-8 code points) when token_sep is empty, else the
// non-empty pieces between token_seps. Invalid UTF-8 in characters throws naming `source`.
std::vector<std::string> split_tokens(std::string_view text, std::string_view token_sep,
                                      std::string_view source = "text");

class PairTokenizer {
 public:
  PairTokenizer() = default;  // characters, the reserved tokens only
  // The character form over a CharTokenizer's vocabulary (a shipped task's, an old checkpoint's);
  // implicit, since a character run's tokenizer is exactly that.
  PairTokenizer(const CharTokenizer& chars) : vocab_(chars.vocab()) {}
  PairTokenizer(Vocab vocab, std::string token_sep) : vocab_(std::move(vocab)), token_sep_(std::move(token_sep)) {}
  explicit PairTokenizer(std::shared_ptr<const TextTokens> bpe) : vocab_(bpe->vocab()), bpe_(std::move(bpe)) {}
  // Every token of the pairs' inputs and outputs, sorted.
  static PairTokenizer from_pairs(const std::vector<Seq2SeqPair>& pairs, std::string token_sep);

  // The tokens of `text`, as the vocabulary names them.
  std::vector<std::string> tokens(std::string_view text, std::string_view source = "text") const;
  // The tokens of `ids` joined by the separator (BPE: their bytes); a reserved id is written as
  // its name ("<sep>").
  std::string decode(const std::vector<int64_t>& ids) const;

  const Vocab& vocab() const { return vocab_; }
  int64_t size() const { return vocab_.size(); }
  const std::string& token_sep() const { return token_sep_; }
  const BpeTokenizer* bpe() const { return bpe_ ? bpe_->bpe() : nullptr; }
  // What its tokens are called in messages: "characters" or "tokens".
  const char* unit() const { return token_sep_.empty() && !bpe_ ? "characters" : "tokens"; }

 private:
  Vocab vocab_;
  std::string token_sep_;
  std::shared_ptr<const TextTokens> bpe_;  // the BPE form's tokens (null otherwise)
};

}  // namespace tg::data
