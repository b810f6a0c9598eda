#pragma once
// Vocab: token strings <-> ids. Every vocabulary starts with the same reserved tokens, so
// their ids are constants:
//   <pad>  = 0  fills a batch's short sequences (the padding mask marks them)
//   <unk>  = 1  any token the vocabulary has not seen
//   <bos>  = 2  beginning of sequence, for tasks that want one
//   <sep>  = 3  separates a task's question from its answer slots
//   <mask> = 4  an answer slot: the encoder predicts the token that belongs there
// Other tokens follow in the order they were added. A token is any non-empty string: one
// character for CharTokenizer, a word or tag for labelled files.
//
// File format (save/load), UTF-8 text: the line "tapegrad-vocab 1", then one token per line,
// the line index after the header being the id. Backslash escapes keep every token on one
// line: \\ backslash, \n newline, \r carriage return, \t tab, \s space.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace tg::data {

inline constexpr int64_t kPadId = 0;
inline constexpr int64_t kUnkId = 1;
inline constexpr int64_t kBosId = 2;
inline constexpr int64_t kSepId = 3;
inline constexpr int64_t kMaskId = 4;
inline constexpr int64_t kNumReserved = 5;

class Vocab {
 public:
  Vocab();  // the reserved tokens only
  // The reserved tokens, then `tokens` in order (repeats and reserved names are skipped).
  explicit Vocab(const std::vector<std::string>& tokens);

  static const std::vector<std::string>& reserved_tokens();  // {"<pad>", ..., "<mask>"}

  int64_t add(const std::string& token);        // its id; new tokens get the next one
  int64_t id(const std::string& token) const;   // kUnkId when absent
  bool contains(const std::string& token) const { return ids_.contains(token); }
  const std::string& token(int64_t id) const;   // throws for an id out of range
  int64_t size() const { return static_cast<int64_t>(tokens_.size()); }
  const std::vector<std::string>& tokens() const { return tokens_; }

  std::vector<int64_t> encode(const std::vector<std::string>& tokens) const;
  std::vector<std::string> decode(const std::vector<int64_t>& ids) const;

  void save(const std::string& path) const;
  static Vocab load(const std::string& path);  // errors name the file and line

  bool operator==(const Vocab& other) const { return tokens_ == other.tokens_; }

 private:
  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int64_t> ids_;
};

// A token as it appears in a vocabulary file or a printout: with the escapes above.
std::string escape_token(const std::string& token);

}  // namespace tg::data
