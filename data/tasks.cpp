#include "data/tasks.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.h"
#include "data/random.h"
#include "data/text.h"

namespace tg::data {

namespace {

constexpr TaskKind kKinds[] = {TaskKind::copy, TaskKind::reverse, TaskKind::sort, TaskKind::mod_add};

// The question, then <sep> (when given) and one <mask> per answer token; the target scores
// only the answer.
Example frame(std::vector<int64_t> question, const std::vector<int64_t>& answer) {
  Example ex;
  ex.target.assign(question.size(), kIgnoreIndex);
  ex.input = std::move(question);
  ex.input.insert(ex.input.end(), answer.size(), kMaskId);
  ex.target.insert(ex.target.end(), answer.begin(), answer.end());
  return ex;
}

}  // namespace

std::string_view task_name(TaskKind kind) {
  switch (kind) {
    case TaskKind::copy: return "copy";
    case TaskKind::reverse: return "reverse";
    case TaskKind::sort: return "sort";
    case TaskKind::mod_add: return "mod_add";
  }
  return "?";
}

TaskKind parse_task_kind(std::string_view name) {
  for (TaskKind k : kKinds)
    if (task_name(k) == name) return k;
  throw Error("SequenceTask", fmt::format("unknown task \"{}\" (copy, reverse, sort or mod_add)", name));
}

SequenceTask::SequenceTask(TaskKind kind, TaskOptions options) : kind_(kind), options_(std::move(options)) {
  const char* op = "SequenceTask";
  if (kind_ == TaskKind::mod_add) {
    if (options_.modulus < 2 || options_.modulus > (int64_t{1} << 40))
      throw Error(op, fmt::format("mod_add: modulus must be in [2, 2^40], got {}", options_.modulus));
    answer_width_ = static_cast<int64_t>(std::to_string(options_.modulus - 1).size());
    tokenizer_ = CharTokenizer::from_alphabet("0123456789+=");
    return;
  }
  std::vector<std::string> symbols = utf8_chars(options_.symbols, "symbols");
  if (symbols.empty()) throw Error(op, fmt::format("{}: symbols is empty", task_name(kind_)));
  tokenizer_ = CharTokenizer::from_alphabet(options_.symbols);
  if (tokenizer_.size() != kNumReserved + static_cast<int64_t>(symbols.size()))
    throw Error(op, fmt::format("{}: symbols \"{}\" has a repeated character", task_name(kind_), options_.symbols));
  if (options_.min_len < 1 || options_.max_len < options_.min_len)
    throw Error(op, fmt::format("{}: need 1 <= min_len <= max_len, got min_len {} and max_len {}", task_name(kind_),
                                options_.min_len, options_.max_len));
}

int64_t SequenceTask::max_length() const {
  if (kind_ != TaskKind::mod_add) return 2 * options_.max_len + 1;
  // "a+b=": two operands of at most answer_width_ digits, '+' and '='.
  return 3 * answer_width_ + 2;
}

Example SequenceTask::sample(Generator& gen) const {
  return kind_ == TaskKind::mod_add ? sample_mod_add(gen) : sample_sequence(gen);
}

std::vector<Example> SequenceTask::examples(int64_t count, uint64_t seed) const {
  if (count < 0) throw Error("SequenceTask", fmt::format("count must be >= 0, got {}", count));
  Generator gen(seed);
  std::vector<Example> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out.push_back(sample(gen));
  return out;
}

Example SequenceTask::sample_sequence(Generator& gen) const {
  const auto span = static_cast<uint64_t>(options_.max_len - options_.min_len + 1);
  const int64_t n = options_.min_len + static_cast<int64_t>(random_below(gen, span));
  const auto num_symbols = static_cast<uint64_t>(tokenizer_.size() - kNumReserved);
  std::vector<int64_t> x(static_cast<size_t>(n));
  for (int64_t& id : x) id = kNumReserved + static_cast<int64_t>(random_below(gen, num_symbols));

  std::vector<int64_t> answer = x;  // copy
  if (kind_ == TaskKind::reverse) std::reverse(answer.begin(), answer.end());
  if (kind_ == TaskKind::sort) std::sort(answer.begin(), answer.end());  // ids follow `symbols` order
  x.push_back(kSepId);
  return frame(std::move(x), answer);
}

Example SequenceTask::sample_mod_add(Generator& gen) const {
  const auto m = static_cast<uint64_t>(options_.modulus);
  const uint64_t a = random_below(gen, m), b = random_below(gen, m);
  const std::string sum = fmt::format("{:0{}}", (a + b) % m, answer_width_);
  return frame(tokenizer_.encode(fmt::format("{}+{}=", a, b)), tokenizer_.encode(sum));
}

std::string format_example(const Example& example, const Vocab& input_vocab, const Vocab& target_vocab) {
  std::vector<std::string> in, out;
  for (int64_t id : example.input) in.push_back(escape_token(input_vocab.token(id)));
  for (int64_t id : example.target) out.push_back(id == kIgnoreIndex ? "_" : escape_token(target_vocab.token(id)));
  return fmt::format("input:  {}\ntarget: {}", fmt::join(in, " "), fmt::join(out, " "));
}

}  // namespace tg::data
