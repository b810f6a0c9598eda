#include "data/seq2seq_tasks.h"

#include <algorithm>
#include <set>

#include "test_util.h"

using namespace tg;
using namespace tg::data;

namespace {

// number_words' inverse, written independently: "three hundred four" -> 304.
int64_t words_to_number(const std::string& words) {
  static const std::vector<std::string> small{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                                              "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                                              "sixteen", "seventeen", "eighteen", "nineteen"};
  static const std::vector<std::string> tens{"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                                             "ninety"};
  int64_t total = 0;
  size_t start = 0;
  while (start <= words.size()) {
    const size_t end = std::min(words.find(' ', start), words.size());
    const std::string word = words.substr(start, end - start);
    if (word == "hundred") total *= 100;
    else if (auto s = std::find(small.begin(), small.end(), word); s != small.end()) total += s - small.begin();
    else if (auto t = std::find(tens.begin(), tens.end(), word); t != tens.end()) total += 10 * (t - tens.begin() + 2);
    else FAIL("not a number word: '" << word << "' in '" << words << "'");
    start = end + 1;
  }
  return total;
}

bool in_alphabet(const std::string& text, const std::string& alphabet) {
  return std::all_of(text.begin(), text.end(), [&](char c) { return alphabet.find(c) != std::string::npos; });
}

}  // namespace

TEST_CASE("seq2seq tasks: addition pairs add up, operands of every digit count") {
  Seq2SeqTask task(Seq2SeqTaskKind::addition, {.max_digits = 3});
  CHECK(task.alphabet() == "0123456789+");
  CHECK(task.max_input_length() == 7);
  CHECK(task.max_output_length() == 4);
  std::set<size_t> operand_lengths, output_lengths;
  for (const Seq2SeqPair& p : task.pairs(300, 1)) {
    CAPTURE(p.input);
    const size_t plus = p.input.find('+');
    REQUIRE(plus != std::string::npos);
    const std::string a = p.input.substr(0, plus), b = p.input.substr(plus + 1);
    operand_lengths.insert(a.size());
    operand_lengths.insert(b.size());
    output_lengths.insert(p.output.size());
    CHECK(p.output == std::to_string(std::stoll(a) + std::stoll(b)));
    CHECK(static_cast<int64_t>(p.input.size()) <= task.max_input_length());
    CHECK(static_cast<int64_t>(p.output.size()) <= task.max_output_length());
  }
  CHECK(operand_lengths == std::set<size_t>{1, 2, 3});
  CHECK(output_lengths.size() >= 3);  // the output's length differs from the input's, and varies
  CHECK(task.pairs(50, 7) == task.pairs(50, 7));
  CHECK(task.pairs(50, 7) != task.pairs(50, 8));
}

TEST_CASE("seq2seq tasks: number_words writes English numbers and their digits") {
  CHECK(number_to_words(0) == "zero");
  CHECK(number_to_words(13) == "thirteen");
  CHECK(number_to_words(40) == "forty");
  CHECK(number_to_words(42) == "forty two");
  CHECK(number_to_words(300) == "three hundred");
  CHECK(number_to_words(304) == "three hundred four");
  CHECK(number_to_words(999) == "nine hundred ninety nine");
  for (int64_t n = 0; n < 1000; ++n) REQUIRE(words_to_number(number_to_words(n)) == n);
  CHECK_THROWS_WITH_AS(number_to_words(1000), "number_to_words: n must be in [0, 1000), got 1000", tg::Error);

  Seq2SeqTask task(Seq2SeqTaskKind::number_words);
  int64_t longest = 0;
  for (int64_t n = 0; n < 1000; ++n) longest = std::max(longest, static_cast<int64_t>(number_to_words(n).size()));
  CHECK(task.max_input_length() == longest);
  CHECK(task.max_output_length() == 3);
  for (const Seq2SeqPair& p : task.pairs(200, 2)) {
    CAPTURE(p.input);
    CHECK(std::to_string(words_to_number(p.input)) == p.output);
    CHECK(in_alphabet(p.input, task.alphabet()));
    CHECK(in_alphabet(p.output, task.alphabet()));
  }
}

TEST_CASE("seq2seq tasks: sort_unique outputs the distinct symbols in symbol order") {
  Seq2SeqTask task(Seq2SeqTaskKind::sort_unique, {.symbols = "dcba", .min_len = 2, .max_len = 6});
  CHECK(task.max_input_length() == 6);
  CHECK(task.max_output_length() == 4);
  std::set<size_t> lengths;
  bool had_duplicates = false;
  for (const Seq2SeqPair& p : task.pairs(300, 3)) {
    CAPTURE(p.input);
    lengths.insert(p.input.size());
    std::string expected;
    for (char c : std::string("dcba"))
      if (p.input.find(c) != std::string::npos) expected += c;
    CHECK(p.output == expected);
    had_duplicates = had_duplicates || p.output.size() < p.input.size();
  }
  CHECK(lengths == std::set<size_t>{2, 3, 4, 5, 6});
  CHECK(had_duplicates);
}

TEST_CASE("seq2seq tasks: the tokenizer holds every character, inputs and outputs round-trip") {
  for (Seq2SeqTaskKind kind :
       {Seq2SeqTaskKind::addition, Seq2SeqTaskKind::number_words, Seq2SeqTaskKind::sort_unique}) {
    CAPTURE(seq2seq_task_name(kind));
    Seq2SeqTask task(kind);
    CHECK(task.tokenizer().size() == kNumReserved + static_cast<int64_t>(task.alphabet().size()));
    for (const Seq2SeqPair& p : task.pairs(100, 4))
      for (const std::string& text : {p.input, p.output}) {
        const std::vector<int64_t> ids = task.tokenizer().encode(text);
        CHECK(std::none_of(ids.begin(), ids.end(), [](int64_t id) { return id < kNumReserved; }));
        CHECK(task.tokenizer().decode(ids) == text);
      }
  }
}

TEST_CASE("seq2seq tasks: names, and bad options are errors naming the task and the limit") {
  for (Seq2SeqTaskKind kind : {Seq2SeqTaskKind::addition, Seq2SeqTaskKind::number_words, Seq2SeqTaskKind::sort_unique})
    CHECK(parse_seq2seq_task_kind(seq2seq_task_name(kind)) == kind);
  CHECK_THROWS_WITH_AS(parse_seq2seq_task_kind("add"),
                       "Seq2SeqTask: unknown task \"add\" (addition, number_words or sort_unique)", tg::Error);
  CHECK_THROWS_WITH_AS(Seq2SeqTask(Seq2SeqTaskKind::addition, {.max_digits = 10}),
                       "Seq2SeqTask: addition: max_digits must be in [1, 9], got 10", tg::Error);
  CHECK_THROWS_WITH_AS(Seq2SeqTask(Seq2SeqTaskKind::sort_unique, {.symbols = "abca"}),
                       "Seq2SeqTask: sort_unique: symbols must be distinct printable ASCII characters, got \"abca\"",
                       tg::Error);
  CHECK_THROWS_WITH_AS(Seq2SeqTask(Seq2SeqTaskKind::sort_unique, {.min_len = 3, .max_len = 2}),
                       "Seq2SeqTask: sort_unique: need 1 <= min_len <= max_len, got min_len 3 and max_len 2",
                       tg::Error);
  CHECK_THROWS_WITH_AS(Seq2SeqTask(Seq2SeqTaskKind::addition).pairs(-1, 0),
                       "Seq2SeqTask: count must be >= 0, got -1", tg::Error);
}
