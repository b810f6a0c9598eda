#include "data/text_tokens.h"

#include <cmath>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/untrusted_text.h"

namespace tg::data {

Vocab bpe_vocab(const BpeTokenizer& bpe) {
  Vocab vocab;
  for (TokenId id = 0; id < bpe.vocab_size(); ++id) {
    std::string name = visible_text(bpe.token_bytes(id));
    if (vocab.contains(name)) name += fmt::format("#{}", id);
    if (vocab.add(name) != kNumReserved + id)  // a name a later token could not take: never for BPE's chunks
      throw Error("bpe_vocab", fmt::format("token {} has the name \"{}\" of another token", id, name));
  }
  return vocab;
}

TextTokens::TextTokens(CharTokenizer chars) : chars_(std::move(chars)) {
  const Vocab& vocab = chars_.vocab();
  text_bytes_.assign(static_cast<size_t>(vocab.size()), 0);
  for (int64_t id = kNumReserved; id < vocab.size(); ++id)
    text_bytes_[static_cast<size_t>(id)] = std::ssize(vocab.token(id));
}

TextTokens::TextTokens(std::shared_ptr<const BpeTokenizer> bpe) : bpe_(std::move(bpe)), bpe_vocab_(bpe_vocab(*bpe_)) {
  text_bytes_.assign(static_cast<size_t>(bpe_vocab_.size()), 0);
  for (TokenId id = 0; id < bpe_->vocab_size(); ++id)
    text_bytes_[static_cast<size_t>(kNumReserved + id)] = std::ssize(bpe_->token_bytes(id));
}

std::vector<int32_t> TextTokens::encode(std::string_view text, std::string_view source) const {
  if (!bpe_) return chars_.encode_compact(text, source);
  std::vector<int32_t> ids = bpe_->encode(text);
  for (int32_t& id : ids) id += kNumReserved;
  return ids;
}

std::string TextTokens::decode(std::span<const int64_t> ids) const {
  if (!bpe_) return chars_.decode({ids.begin(), ids.end()});
  std::string text;
  for (int64_t id : ids) {
    const TokenId token = static_cast<TokenId>(id - kNumReserved);
    text += id < kNumReserved ? bpe_vocab_.token(id) : bpe_->decode(std::span(&token, 1));  // decode checks the id
  }
  return text;
}

double bits_per_byte(double loss, int64_t tokens, int64_t bytes) {
  return bytes == 0 ? 0.0 : loss * static_cast<double>(tokens) / (std::log(2.0) * static_cast<double>(bytes));
}

}  // namespace tg::data
