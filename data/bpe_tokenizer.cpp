#include "data/bpe_tokenizer.h"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/io/untrusted_text.h"

namespace tg::data {

namespace {

constexpr const char* kBpeTokenizerOp = "tokenizer";

enum class ByteClass { word, punctuation, space, other_space };

ByteClass byte_class(unsigned char c) {
  if (c == ' ') return ByteClass::space;
  if (c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f') return ByteClass::other_space;
  const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  return alnum || c >= 0x80 ? ByteClass::word : ByteClass::punctuation;
}

// Whether text[i] is a space that begins the chunk of the word or punctuation after it.
bool leading_space(std::string_view text, size_t i) {
  if (text[i] != ' ' || i + 1 >= text.size()) return false;
  const ByteClass next = byte_class(static_cast<unsigned char>(text[i + 1]));
  return next == ByteClass::word || next == ByteClass::punctuation;
}

}  // namespace

std::vector<std::string_view> bpe_chunks(std::string_view text) {
  std::vector<std::string_view> chunks;
  for (size_t start = 0; start < text.size();) {
    size_t end = leading_space(text, start) ? start + 1 : start;
    const ByteClass cls = byte_class(static_cast<unsigned char>(text[end]));
    for (++end; end < text.size() && byte_class(static_cast<unsigned char>(text[end])) == cls; ++end)
      if (cls == ByteClass::space && leading_space(text, end)) break;
    chunks.push_back(text.substr(start, end - start));
    start = end;
  }
  return chunks;
}

void merge_pair(std::vector<TokenId>& ids, TokenId a, TokenId b, TokenId merged) {
  size_t out = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    const bool pair = i + 1 < ids.size() && ids[i] == a && ids[i + 1] == b;
    ids[out++] = pair ? merged : ids[i];
    if (pair) ++i;
  }
  ids.resize(out);
}

BpeTokenizer::BpeTokenizer(std::vector<BpeMerge> merges, std::vector<std::string> specials)
    : merges_(std::move(merges)), specials_(std::move(specials)) {
  const int64_t vocab = kByteTokens + static_cast<int64_t>(merges_.size()) + static_cast<int64_t>(specials_.size());
  if (vocab > kMaxVocab)
    throw Error(kBpeTokenizerOp, fmt::format("a vocabulary of {} tokens (256 bytes, {} merges, {} specials) is more than the "
                                 "limit of {}", vocab, merges_.size(), specials_.size(), kMaxVocab));
  bytes_.reserve(static_cast<size_t>(vocab));
  for (int b = 0; b < kByteTokens; ++b) bytes_.emplace_back(1, static_cast<char>(b));
  for (size_t i = 0; i < merges_.size(); ++i) {
    const auto [a, b] = merges_[i];
    const TokenId id = static_cast<TokenId>(bytes_.size());
    if (a < 0 || b < 0 || a >= id || b >= id)
      throw Error(kBpeTokenizerOp, fmt::format("merge {} ({}, {}) must join two ids made before it, in [0, {})", i, a, b, id));
    if (!merge_rank_.emplace(bpe_pair_key(a, b), static_cast<TokenId>(i)).second)
      throw Error(kBpeTokenizerOp, fmt::format("merge {} ({}, {}) repeats an earlier merge of the same pair", i, a, b));
    bytes_.push_back(bytes_[static_cast<size_t>(a)] + bytes_[static_cast<size_t>(b)]);
  }
  std::set<std::string_view> names;
  for (const std::string& name : specials_) {
    if (name.empty()) throw Error(kBpeTokenizerOp, "a special token's name must not be empty");
    if (!names.insert(name).second)
      throw Error(kBpeTokenizerOp, fmt::format("the special token \"{}\" is declared twice", visible_text(name)));
    bytes_.push_back(name);
  }
}

std::vector<TokenId> BpeTokenizer::encode_chunk(std::string_view chunk) const {
  std::vector<TokenId> ids(chunk.begin(), chunk.end());
  for (TokenId& id : ids) id = static_cast<unsigned char>(id);
  // Merge the pair of lowest rank present, everywhere in the chunk, until none is: the order in
  // which training applied the merges (a merge can only create pairs of higher rank).
  for (;;) {
    TokenId best = std::numeric_limits<TokenId>::max();
    for (size_t i = 0; i + 1 < ids.size(); ++i)
      if (auto it = merge_rank_.find(bpe_pair_key(ids[i], ids[i + 1])); it != merge_rank_.end())
        best = std::min(best, it->second);
    if (best == std::numeric_limits<TokenId>::max()) return ids;
    const auto [a, b] = merges_[static_cast<size_t>(best)];
    merge_pair(ids, a, b, static_cast<TokenId>(kByteTokens) + best);
  }
}

std::vector<TokenId> BpeTokenizer::encode(std::string_view text) const {
  std::vector<TokenId> ids;
  std::unordered_map<std::string_view, std::vector<TokenId>> seen;  // a word recurs: encode it once
  for (std::string_view chunk : bpe_chunks(text)) {
    auto it = seen.find(chunk);
    if (it == seen.end()) it = seen.emplace(chunk, encode_chunk(chunk)).first;
    ids.insert(ids.end(), it->second.begin(), it->second.end());
  }
  return ids;
}

std::string BpeTokenizer::decode(std::span<const TokenId> ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size())
      throw Error(kBpeTokenizerOp, fmt::format("id {} (at position {}) is outside the vocabulary of {} tokens", ids[i], i,
                                   vocab_size()));
    text += bytes_[static_cast<size_t>(ids[i])];
  }
  return text;
}

TokenId BpeTokenizer::special_id(std::string_view name) const {
  auto it = std::find(specials_.begin(), specials_.end(), name);
  if (it == specials_.end())
    throw Error(kBpeTokenizerOp, fmt::format("no special token \"{}\": the tokenizer declares {}", visible_text(name),
                                 specials_.empty() ? "none" : fmt::format("{}", fmt::join(specials_, ", "))));
  return static_cast<TokenId>(kByteTokens + static_cast<int64_t>(merges_.size()) + (it - specials_.begin()));
}

}  // namespace tg::data
