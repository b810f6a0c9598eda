#include "data/char_tokenizer.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "data/text.h"

namespace tg::data {

CharTokenizer::CharTokenizer(Vocab vocab) : vocab_(std::move(vocab)) {
  for (int64_t id = kNumReserved; id < vocab_.size(); ++id) {
    const std::string& t = vocab_.token(id);
    if (utf8_chars(t, "token").size() != 1)
      throw Error("CharTokenizer", fmt::format("token {} \"{}\" is not a single character", id, escape_token(t)));
  }
}

CharTokenizer CharTokenizer::from_text(std::string_view text, std::string_view source) {
  std::vector<std::string> chars = utf8_chars(text, source);
  // Sorting the UTF-8 bytes sorts by code point (UTF-8 preserves code point order).
  std::sort(chars.begin(), chars.end());
  chars.erase(std::unique(chars.begin(), chars.end()), chars.end());
  return CharTokenizer(Vocab(chars));
}

CharTokenizer CharTokenizer::from_alphabet(std::string_view alphabet) {
  return CharTokenizer(Vocab(utf8_chars(alphabet, "alphabet")));
}

std::vector<int64_t> CharTokenizer::encode(std::string_view text) const {
  return vocab_.encode(utf8_chars(text));
}

std::string CharTokenizer::decode(const std::vector<int64_t>& ids, bool skip_reserved) const {
  std::string text;
  for (int64_t id : ids) {
    const std::string& t = vocab_.token(id);
    if (!(skip_reserved && id < kNumReserved)) text += t;
  }
  return text;
}

}  // namespace tg::data
