#pragma once
// Sequence-to-sequence tasks for an encoder-decoder (nn::Transformer): each example is an input
// string and an output string of another length; characters are the tokens.
//
//   addition      "12+345"              -> "357"    a, b below 10^d, d uniform in [1, max_digits]
//   number_words  "three hundred four"  -> "304"    n uniform in [0, 1000)
//   sort_unique   "3130"                -> "013"    n = [min_len, max_len] symbols from `symbols`,
//                                                   output: the distinct ones in symbol order
//
// Input and output share one CharTokenizer over alphabet() (the reserved tokens first, <bos> and
// <sep> among them). Examples are drawn from a Philox tg::Generator: the same seed gives the same
// pairs everywhere.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "data/char_tokenizer.h"

namespace tg::data {

enum class Seq2SeqTaskKind { addition, number_words, sort_unique };

std::string_view seq2seq_task_name(Seq2SeqTaskKind kind);       // "addition", "number_words", "sort_unique"
Seq2SeqTaskKind parse_seq2seq_task_kind(std::string_view name);  // the inverse; throws on an unknown name

struct Seq2SeqPair {
  std::string input, output;
  bool operator==(const Seq2SeqPair&) const = default;
};

struct Seq2SeqTaskOptions {
  int64_t max_digits = 3;              // addition: operands of up to max_digits digits; in [1, 9]
  std::string symbols = "0123456789";  // sort_unique: distinct printable ASCII characters, in sort order
  int64_t min_len = 1;                 // sort_unique: input lengths, inclusive
  int64_t max_len = 8;
};

class Seq2SeqTask {
 public:
  explicit Seq2SeqTask(Seq2SeqTaskKind kind, Seq2SeqTaskOptions options = {});

  Seq2SeqTaskKind kind() const { return kind_; }
  const Seq2SeqTaskOptions& options() const { return options_; }
  const std::string& alphabet() const { return alphabet_; }  // every character of every input and output
  const CharTokenizer& tokenizer() const { return tokenizer_; }
  int64_t max_input_length() const;
  int64_t max_output_length() const;

  Seq2SeqPair sample(Generator& gen) const;
  std::vector<Seq2SeqPair> pairs(int64_t count, uint64_t seed) const;  // Generator(seed)

 private:
  Seq2SeqTaskKind kind_;
  Seq2SeqTaskOptions options_;
  std::string alphabet_;
  CharTokenizer tokenizer_;
};

// n in [0, 1000) in English words, as number_words writes it: "zero", "forty two",
// "three hundred four", "nine hundred ninety nine". Throws tg::Error outside [0, 1000).
std::string number_to_words(int64_t n);

}  // namespace tg::data
