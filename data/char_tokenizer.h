#pragma once
// CharTokenizer: text <-> token ids, one token per Unicode code point ("né" is 2 tokens,
// although 'é' is 2 bytes). The vocabulary is a Vocab (data/vocab.h): the reserved tokens
// <pad>=0 <unk>=1 <bos>=2 <sep>=3 <mask>=4, then one token per character.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/vocab.h"

namespace tg::data {

class CharTokenizer {
 public:
  CharTokenizer() = default;  // the reserved tokens only
  // Every non-reserved token of `vocab` must be exactly one code point.
  explicit CharTokenizer(Vocab vocab);

  // The distinct characters of `text`, sorted by code point (one pass, no string per
  // character: the text may be large). Invalid UTF-8 throws, naming `source` (a file name) and
  // the line.
  static CharTokenizer from_text(std::string_view text, std::string_view source = "text");
  // The characters of `alphabet` in the order written: "ba" gives b=5, a=6.
  static CharTokenizer from_alphabet(std::string_view alphabet);

  // One id per character. A character the vocabulary lacks throws, naming `source` (a file
  // name, a flag), the line and the character: the model has no embedding for it.
  //   "CharTokenizer: --prompt:1: the character "é" is not in the model's vocabulary (the 26
  //    characters of its training text)"
  std::vector<int64_t> encode(std::string_view text, std::string_view source = "text") const;
  // The same ids in 4 bytes each, for a long text (a language model's corpus).
  std::vector<int32_t> encode_compact(std::string_view text, std::string_view source = "text") const;
  // The tokens' text concatenated; reserved tokens appear as their names ("<sep>"), or are
  // left out with skip_reserved.
  std::string decode(const std::vector<int64_t>& ids, bool skip_reserved = false) const;

  const Vocab& vocab() const { return vocab_; }
  int64_t size() const { return vocab_.size(); }

  void save(const std::string& path) const { vocab_.save(path); }
  static CharTokenizer load(const std::string& path) { return CharTokenizer(Vocab::load(path)); }

  bool operator==(const CharTokenizer& other) const { return vocab_ == other.vocab_; }

 private:
  Vocab vocab_;
};

}  // namespace tg::data
