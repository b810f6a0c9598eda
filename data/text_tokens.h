#pragma once
// TextTokens: the tokens of a language model's text, its characters (CharTokenizer) or a
// byte-level BPE's tokens (data/bpe_tokenizer.h), behind the model's vocabulary. Model ids are
// the vocabulary's: the reserved tokens (data/vocab.h) first, then the text's tokens, so BPE
// token i is model id kNumReserved + i. A BPE token is named in the vocabulary by its bytes as
// a terminal shows them (visible_text: "\xE2" for a byte that begins a character another
// token ends), with "#<id>" appended where two tokens would share a name (two merges can spell
// the same bytes).
//
// Bits per byte compare language models with different tokens: a model's mean loss per token
// (nats), times its tokens, over ln 2 times the text's bytes. text_bytes() gives the bytes each
// model id stands for.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "data/bpe_tokenizer.h"
#include "data/char_tokenizer.h"
#include "data/vocab.h"

namespace tg::data {

class TextTokens {
 public:
  explicit TextTokens(CharTokenizer chars);
  explicit TextTokens(std::shared_ptr<const BpeTokenizer> bpe);

  // Model ids; `source` names the text in errors (a character the vocabulary lacks).
  std::vector<int32_t> encode(std::string_view text, std::string_view source = "text") const;
  // The text of model ids; reserved ids appear as their names ("<sep>").
  std::string decode(std::span<const int64_t> ids) const;

  const Vocab& vocab() const { return bpe_ ? bpe_vocab_ : chars_.vocab(); }
  const BpeTokenizer* bpe() const { return bpe_.get(); }  // null for characters
  // What its tokens are called in messages: "characters" or "tokens".
  const char* unit() const { return bpe_ ? "tokens" : "characters"; }
  // The bytes of text each model id stands for (0 for the reserved ids).
  const std::vector<int64_t>& text_bytes() const { return text_bytes_; }

 private:
  CharTokenizer chars_;
  std::shared_ptr<const BpeTokenizer> bpe_;
  Vocab bpe_vocab_;  // empty for characters
  std::vector<int64_t> text_bytes_;
};

// The vocabulary of a BPE tokenizer's tokens, named as above.
Vocab bpe_vocab(const BpeTokenizer& bpe);

// Bits per byte of `loss` nats per token over `tokens` tokens standing for `bytes` bytes (0
// when there are no bytes).
double bits_per_byte(double loss, int64_t tokens, int64_t bytes);

}  // namespace tg::data
