#pragma once
// Synthetic sequence tasks for an encoder, framed as per-position labelling (data/example.h):
// the question, then answer slots filled with <mask>; the target scores only the slots.
// n = the sequence length, drawn uniformly from [min_len, max_len] for each example.
//
//   copy     x1..xn <sep> <mask>*n      target: -100*(n+1), x1..xn
//   reverse  x1..xn <sep> <mask>*n      target: -100*(n+1), xn..x1
//   sort     x1..xn <sep> <mask>*n      target: -100*(n+1), x sorted by symbol order
//   mod_add  a + b = <mask>*w           target: -100 on "a+b=", then the w digits of
//            (a, b uniform in [0, m),           (a + b) mod m, zero-padded to w = digits of m-1
//             written in decimal)
//
// x's symbols are the code points of `symbols` ("0123456789" by default); their order there
// is the order sort uses. Input and target share one CharTokenizer, so a model's output
// classes are the task's token ids. Examples are drawn from a Philox tg::Generator: the same
// seed gives the same examples everywhere.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "data/char_tokenizer.h"
#include "data/example.h"

namespace tg::data {

enum class TaskKind { copy, reverse, sort, mod_add };

std::string_view task_name(TaskKind kind);       // "copy", "reverse", "sort", "mod_add"
TaskKind parse_task_kind(std::string_view name);  // the inverse; throws on an unknown name

struct TaskOptions {
  std::string symbols = "0123456789";  // copy/reverse/sort: distinct characters
  int64_t min_len = 1;                 // copy/reverse/sort: sequence lengths, inclusive
  int64_t max_len = 8;
  int64_t modulus = 97;                // mod_add: m >= 2
};

class SequenceTask {
 public:
  explicit SequenceTask(TaskKind kind, TaskOptions options = {});

  TaskKind kind() const { return kind_; }
  const TaskOptions& options() const { return options_; }
  const CharTokenizer& tokenizer() const { return tokenizer_; }
  int64_t max_length() const;  // the longest example's length

  Example sample(Generator& gen) const;                           // one example
  std::vector<Example> examples(int64_t count, uint64_t seed) const;  // Generator(seed)

 private:
  Example sample_sequence(Generator& gen) const;  // copy, reverse, sort
  Example sample_mod_add(Generator& gen) const;

  TaskKind kind_;
  TaskOptions options_;
  CharTokenizer tokenizer_;
  int64_t answer_width_ = 0;  // mod_add: digits of modulus - 1
};

// A readable two-line view of an example: tokens, then targets ("_" where unscored).
std::string format_example(const Example& example, const Vocab& input_vocab, const Vocab& target_vocab);

}  // namespace tg::data
