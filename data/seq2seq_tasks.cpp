#include "data/seq2seq_tasks.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/error.h"
#include "data/random.h"

namespace tg::data {

namespace {

constexpr const char* kSeq2SeqTaskOp = "Seq2SeqTask";
constexpr Seq2SeqTaskKind kSeq2SeqKinds[] = {Seq2SeqTaskKind::addition, Seq2SeqTaskKind::number_words,
                                      Seq2SeqTaskKind::sort_unique};
constexpr const char* kOnes[] = {"zero",    "one",     "two",       "three",    "four",
                                 "five",    "six",     "seven",     "eight",    "nine",
                                 "ten",     "eleven",  "twelve",    "thirteen", "fourteen",
                                 "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"};
constexpr const char* kTens[] = {"", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"};

// 10^digits
int64_t power_of_ten(int64_t digits) {
  int64_t p = 1;
  for (int64_t i = 0; i < digits; ++i) p *= 10;
  return p;
}

}  // namespace

std::string_view seq2seq_task_name(Seq2SeqTaskKind kind) {
  switch (kind) {
    case Seq2SeqTaskKind::addition: return "addition";
    case Seq2SeqTaskKind::number_words: return "number_words";
    case Seq2SeqTaskKind::sort_unique: return "sort_unique";
  }
  return "?";
}

Seq2SeqTaskKind parse_seq2seq_task_kind(std::string_view name) {
  for (Seq2SeqTaskKind k : kSeq2SeqKinds)
    if (seq2seq_task_name(k) == name) return k;
  throw Error(kSeq2SeqTaskOp, fmt::format("unknown task \"{}\" (addition, number_words or sort_unique)", name));
}

std::string number_to_words(int64_t n) {
  if (n < 0 || n >= 1000) throw Error("number_to_words", fmt::format("n must be in [0, 1000), got {}", n));
  if (n < 20) return kOnes[n];
  std::string words;
  if (n >= 100) {
    words = std::string(kOnes[n / 100]) + " hundred";
    if (n % 100 == 0) return words;
    words += ' ';
    n %= 100;
  }
  if (n < 20) return words + kOnes[n];
  words += kTens[n / 10];
  return n % 10 == 0 ? words : words + " " + kOnes[n % 10];
}

Seq2SeqTask::Seq2SeqTask(Seq2SeqTaskKind kind, Seq2SeqTaskOptions options)
    : kind_(kind), options_(std::move(options)) {
  switch (kind_) {
    case Seq2SeqTaskKind::addition:
      if (options_.max_digits < 1 || options_.max_digits > 9)
        throw Error(kSeq2SeqTaskOp, fmt::format("addition: max_digits must be in [1, 9], got {}", options_.max_digits));
      alphabet_ = "0123456789+";
      break;
    case Seq2SeqTaskKind::number_words: {
      std::set<char> chars{'0', '1', '2', '3', '4', '5', '6', '7', '8', '9'};
      for (int64_t n = 0; n < 1000; ++n)
        for (char c : number_to_words(n)) chars.insert(c);
      alphabet_.assign(chars.begin(), chars.end());
      break;
    }
    case Seq2SeqTaskKind::sort_unique: {
      const std::string& s = options_.symbols;
      const bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c <= '~'; });
      if (s.empty() || !ascii || std::set<char>(s.begin(), s.end()).size() != s.size())
        throw Error(kSeq2SeqTaskOp,
                    fmt::format("sort_unique: symbols must be distinct printable ASCII characters, got \"{}\"", s));
      if (options_.min_len < 1 || options_.max_len < options_.min_len)
        throw Error(kSeq2SeqTaskOp, fmt::format("sort_unique: need 1 <= min_len <= max_len, got min_len {} and max_len {}",
                                     options_.min_len, options_.max_len));
      alphabet_ = s;
      break;
    }
  }
  tokenizer_ = CharTokenizer::from_alphabet(alphabet_);
}

int64_t Seq2SeqTask::max_input_length() const {
  switch (kind_) {
    case Seq2SeqTaskKind::addition: return 2 * options_.max_digits + 1;
    case Seq2SeqTaskKind::number_words: return static_cast<int64_t>(number_to_words(777).size());
    case Seq2SeqTaskKind::sort_unique: return options_.max_len;
  }
  return 0;
}

int64_t Seq2SeqTask::max_output_length() const {
  switch (kind_) {
    case Seq2SeqTaskKind::addition: return options_.max_digits + 1;
    case Seq2SeqTaskKind::number_words: return 3;
    case Seq2SeqTaskKind::sort_unique:
      return std::min(options_.max_len, static_cast<int64_t>(options_.symbols.size()));
  }
  return 0;
}

Seq2SeqPair Seq2SeqTask::sample(Generator& gen) const {
  switch (kind_) {
    case Seq2SeqTaskKind::addition: {
      // Below 10^d for d uniform in [1, max_digits], so that short and long operands are equally likely.
      auto operand = [&] {
        const auto digits = 1 + static_cast<int64_t>(random_below(gen, static_cast<uint64_t>(options_.max_digits)));
        return static_cast<int64_t>(random_below(gen, static_cast<uint64_t>(power_of_ten(digits))));
      };
      const int64_t a = operand(), b = operand();
      return {fmt::format("{}+{}", a, b), std::to_string(a + b)};
    }
    case Seq2SeqTaskKind::number_words: {
      const auto n = static_cast<int64_t>(random_below(gen, 1000));
      return {number_to_words(n), std::to_string(n)};
    }
    case Seq2SeqTaskKind::sort_unique: {
      const std::string& s = options_.symbols;
      const int64_t len =
          options_.min_len + static_cast<int64_t>(random_below(gen, options_.max_len - options_.min_len + 1));
      std::string input;
      std::vector<bool> present(s.size(), false);
      for (int64_t i = 0; i < len; ++i) {
        const uint64_t k = random_below(gen, s.size());
        input += s[k];
        present[k] = true;
      }
      std::string output;
      for (size_t k = 0; k < s.size(); ++k)
        if (present[k]) output += s[k];
      return {input, output};
    }
  }
  return {};
}

std::vector<Seq2SeqPair> Seq2SeqTask::pairs(int64_t count, uint64_t seed) const {
  if (count < 0) throw Error(kSeq2SeqTaskOp, fmt::format("count must be >= 0, got {}", count));
  Generator gen(seed);
  std::vector<Seq2SeqPair> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out.push_back(sample(gen));
  return out;
}

}  // namespace tg::data
