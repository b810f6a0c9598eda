#include "data/char_tokenizer.h"

#include <algorithm>
#include <unordered_set>

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
  std::unordered_set<std::string_view> distinct;
  for (size_t i = 0, len; i < text.size(); i += len) {
    len = utf8_char_size(text, i, source);
    distinct.insert(text.substr(i, len));
  }
  // Sorting the UTF-8 bytes sorts by code point (UTF-8 preserves code point order).
  std::vector<std::string> chars(distinct.begin(), distinct.end());
  std::sort(chars.begin(), chars.end());
  return CharTokenizer(Vocab(chars));
}

CharTokenizer CharTokenizer::from_alphabet(std::string_view alphabet) {
  return CharTokenizer(Vocab(utf8_chars(alphabet, "alphabet")));
}

namespace {

// A character's id is never <unk>'s: that is what Vocab::id gives for a character it lacks.
template <class Id>
std::vector<Id> encode_as(const Vocab& vocab, std::string_view text, std::string_view source) {
  std::vector<Id> ids;
  int64_t line = 1;
  for (size_t i = 0, len; i < text.size(); i += len) {
    len = utf8_char_size(text, i, source);
    const std::string ch(text.substr(i, len));
    const int64_t id = vocab.id(ch);
    if (id == kUnkId)
      throw Error("CharTokenizer", fmt::format("{}:{}: the character \"{}\" is not in the model's vocabulary (the {} "
                                               "characters of its training text)", source, line, escape_token(ch),
                                               vocab.size() - kNumReserved));
    ids.push_back(static_cast<Id>(id));
    line += ch == "\n";
  }
  return ids;
}

}  // namespace

std::vector<int64_t> CharTokenizer::encode(std::string_view text, std::string_view source) const {
  return encode_as<int64_t>(vocab_, text, source);
}

std::vector<int32_t> CharTokenizer::encode_compact(std::string_view text, std::string_view source) const {
  return encode_as<int32_t>(vocab_, text, source);
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
