#pragma once
// Byte-level BPE, the GPT-2 family's scheme: the 256 byte values are the base tokens, so every
// input (invalid UTF-8 included) encodes, and decode(encode(text)) == text byte for byte. Merges
// learned from a corpus (data/bpe_training.cpp) each make one new token of two existing ones;
// special tokens are declared by name, come after the merges, and are never produced by encode
// (the text "<bos>" in a corpus encodes as its five bytes).
//
//   ids 0..255                      the bytes
//   ids 256..256+M-1                merge i: the concatenation of merges[i].first and .second
//   ids 256+M..256+M+S-1            the special tokens, in the order declared
//
// Merges never cross a chunk boundary of bpe_chunks (below), so a token is part of one word,
// one run of punctuation or one run of white space, as in GPT-2.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tg::data {

using TokenId = int32_t;
using BpeMerge = std::pair<TokenId, TokenId>;

// The pre-tokenizer: `text` cut into chunks, each a run of one class of bytes: letters and
// digits (and every byte >= 0x80, so a UTF-8 character stays whole), punctuation, spaces, or
// other white space. A single space before a word or a run of punctuation joins it (" word"),
// as GPT-2's pattern does. The chunks concatenate to `text`.
std::vector<std::string_view> bpe_chunks(std::string_view text);

class BpeTokenizer {
 public:
  static constexpr int64_t kByteTokens = 256;
  static constexpr int64_t kMaxVocab = int64_t{1} << 20;  // ids fit in 4 bytes with room; the tables stay small

  // Checks that every merge names two earlier ids, that no pair is merged twice and that the
  // specials are distinct, non-empty names: tg::Error("tokenizer", ...) otherwise.
  BpeTokenizer(std::vector<BpeMerge> merges, std::vector<std::string> specials);

  std::vector<TokenId> encode(std::string_view text) const;
  // The bytes of `ids`, a special token as its name; an id outside the vocabulary is an error
  // naming it and the vocabulary's size.
  std::string decode(std::span<const TokenId> ids) const;

  int64_t vocab_size() const { return static_cast<int64_t>(bytes_.size()); }
  const std::vector<BpeMerge>& merges() const { return merges_; }
  const std::vector<std::string>& specials() const { return specials_; }
  // The id of the special token `name`; one not declared is an error listing those declared.
  TokenId special_id(std::string_view name) const;
  // What id decodes to.
  const std::string& token_bytes(TokenId id) const { return bytes_.at(static_cast<size_t>(id)); }

 private:
  std::vector<TokenId> encode_chunk(std::string_view chunk) const;

  std::vector<BpeMerge> merges_;
  std::vector<std::string> specials_;
  std::vector<std::string> bytes_;                  // per id
  std::unordered_map<uint64_t, TokenId> merge_rank_;  // pair key -> index of its merge
};

// Replaces each occurrence of the pair (a, b) in `ids` by `merged`, left to right.
void merge_pair(std::vector<TokenId>& ids, TokenId a, TokenId b, TokenId merged);

// The key of an ordered pair of ids in the tables of encode and training.
inline uint64_t bpe_pair_key(TokenId a, TokenId b) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
}

}  // namespace tg::data
