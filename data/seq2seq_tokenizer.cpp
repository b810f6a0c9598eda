#include "data/seq2seq_tokenizer.h"

#include <algorithm>
#include <set>

#include "data/text.h"

namespace tg::data {

std::vector<std::string> split_tokens(std::string_view text, std::string_view token_sep, std::string_view source) {
  if (token_sep.empty()) return utf8_chars(text, source);
  std::vector<std::string> tokens;
  for (size_t i = 0; i <= text.size();) {
    const size_t end = std::min(text.find(token_sep, i), text.size());
    if (end > i) tokens.emplace_back(text.substr(i, end - i));
    i = end + token_sep.size();
  }
  return tokens;
}

PairTokenizer PairTokenizer::from_pairs(const std::vector<Seq2SeqPair>& pairs, std::string token_sep) {
  std::set<std::string> tokens;
  for (const Seq2SeqPair& p : pairs)
    for (const std::string* side : {&p.input, &p.output})
      for (std::string& t : split_tokens(*side, token_sep)) tokens.insert(std::move(t));
  return PairTokenizer(Vocab(std::vector<std::string>(tokens.begin(), tokens.end())), std::move(token_sep));
}

std::vector<std::string> PairTokenizer::tokens(std::string_view text, std::string_view source) const {
  if (!bpe_) return split_tokens(text, token_sep_, source);
  std::vector<std::string> tokens;
  for (int32_t id : bpe_->encode(text)) tokens.push_back(vocab_.token(id));
  return tokens;
}

std::string PairTokenizer::decode(const std::vector<int64_t>& ids) const {
  if (bpe_) return bpe_->decode(ids);
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) text += token_sep_;
    text += vocab_.token(ids[i]);
  }
  return text;
}

}  // namespace tg::data
