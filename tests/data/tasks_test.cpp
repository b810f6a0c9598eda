#include "data/tasks.h"
#include "test_util.h"

#include <algorithm>
#include <set>

using namespace tg;
using namespace tg::data;

namespace {

// Splits a sequence-task example into (x, answer) after checking the frame:
// x <sep> <mask>*n with targets -100*(n+1) then the answer.
void split_frame(const Example& ex, std::vector<int64_t>& x, std::vector<int64_t>& answer) {
  const size_t n = (ex.input.size() - 1) / 2;
  REQUIRE(ex.input.size() == 2 * n + 1);
  REQUIRE(ex.target.size() == ex.input.size());
  CHECK(ex.input[n] == kSepId);
  x.assign(ex.input.begin(), ex.input.begin() + static_cast<std::ptrdiff_t>(n));
  answer.assign(ex.target.begin() + static_cast<std::ptrdiff_t>(n) + 1, ex.target.end());
  for (size_t t = 0; t <= n; ++t) CHECK(ex.target[t] == kIgnoreIndex);
  for (size_t t = n + 1; t < ex.input.size(); ++t) CHECK(ex.input[t] == kMaskId);
}

}  // namespace

TEST_CASE("tasks: copy, reverse and sort examples hold the right answers") {
  TaskOptions opt{.symbols = "abcdef", .min_len = 2, .max_len = 6};
  for (TaskKind kind : {TaskKind::copy, TaskKind::reverse, TaskKind::sort}) {
    CAPTURE(task_name(kind));
    SequenceTask task(kind, opt);
    CHECK(task.tokenizer().size() == kNumReserved + 6);
    CHECK(task.max_length() == 13);
    std::set<size_t> lengths;
    for (const Example& ex : task.examples(200, 3)) {
      std::vector<int64_t> x, answer;
      split_frame(ex, x, answer);
      lengths.insert(x.size());
      for (int64_t id : x) CHECK((id >= kNumReserved && id < kNumReserved + 6));
      // Compare in characters: the task's answer against one computed here on the text.
      std::string xs = task.tokenizer().decode(x), expected = xs;
      if (kind == TaskKind::reverse) std::reverse(expected.begin(), expected.end());
      if (kind == TaskKind::sort) std::sort(expected.begin(), expected.end());  // "abcdef" is in char order
      CHECK(task.tokenizer().decode(answer) == expected);
    }
    CHECK(lengths == std::set<size_t>{2, 3, 4, 5, 6});  // every length in [min_len, max_len] occurs
  }
}

TEST_CASE("tasks: sort uses the order of the symbols as written, and multibyte symbols") {
  SequenceTask task(TaskKind::sort, {.symbols = "zyé", .min_len = 5, .max_len = 5});
  for (const Example& ex : task.examples(20, 1)) {
    std::vector<int64_t> x, answer;
    split_frame(ex, x, answer);
    std::string out = task.tokenizer().decode(answer);
    // every z before every y before every é
    size_t z = std::count(out.begin(), out.end(), 'z'), y = std::count(out.begin(), out.end(), 'y');
    std::string expected = std::string(z, 'z') + std::string(y, 'y');
    for (size_t k = 0; k < 5 - z - y; ++k) expected += "é";
    CHECK(out == expected);
  }
}

TEST_CASE("tasks: mod_add targets the zero-padded digits of (a + b) mod m") {
  SequenceTask task(TaskKind::mod_add, {.modulus = 113});
  CHECK(task.max_length() == 11);  // "112+112=" + 3 slots
  const CharTokenizer& tok = task.tokenizer();
  int wrapped = 0;
  for (const Example& ex : task.examples(300, 9)) {
    REQUIRE(ex.input.size() == ex.target.size());
    std::string in = tok.decode(ex.input, true);  // "a+b=" without the <mask> slots
    size_t plus = in.find('+'), eq = in.find('=');
    REQUIRE(eq == in.size() - 1);
    int64_t a = std::stoll(in.substr(0, plus)), b = std::stoll(in.substr(plus + 1, eq - plus - 1));
    CHECK((a >= 0 && a < 113 && b >= 0 && b < 113));
    wrapped += a + b >= 113;
    const size_t q = ex.input.size() - 3;  // the question's length
    for (size_t t = 0; t < q; ++t) CHECK(ex.target[t] == kIgnoreIndex);
    for (size_t t = q; t < ex.input.size(); ++t) CHECK(ex.input[t] == kMaskId);
    std::vector<int64_t> answer(ex.target.begin() + static_cast<std::ptrdiff_t>(q), ex.target.end());
    CHECK(std::stoll(tok.decode(answer)) == (a + b) % 113);
  }
  CHECK(wrapped > 50);  // about half of the sums wrap around

  // Hand-worked, the first two examples of seed 1 with m = 97:
  //   91+12 = 103 = 6 (mod 97) -> "06";  90+8 = 98 = 1 (mod 97) -> "01"
  SequenceTask m97(TaskKind::mod_add, {.modulus = 97});
  std::vector<Example> two = m97.examples(2, 1);
  CHECK(format_example(two[0], m97.tokenizer().vocab(), m97.tokenizer().vocab()) ==
        "input:  9 1 + 1 2 = <mask> <mask>\ntarget: _ _ _ _ _ _ 0 6");
  CHECK(format_example(two[1], m97.tokenizer().vocab(), m97.tokenizer().vocab()) ==
        "input:  9 0 + 8 = <mask> <mask>\ntarget: _ _ _ _ _ 0 1");
}

TEST_CASE("tasks: the same seed gives the same examples, another seed others") {
  for (TaskKind kind : {TaskKind::copy, TaskKind::reverse, TaskKind::sort, TaskKind::mod_add}) {
    SequenceTask task(kind);
    CHECK(task.examples(50, 7) == task.examples(50, 7));
    CHECK(task.examples(50, 7) != task.examples(50, 8));
    // sample() continues the generator: examples(n, seed) is n samples from Generator(seed)
    Generator gen(7);
    Example first = task.sample(gen), second = task.sample(gen);
    std::vector<Example> two = task.examples(2, 7);
    CHECK(two[0] == first);
    CHECK(two[1] == second);
  }
}

TEST_CASE("tasks: names, example printout and bad options") {
  CHECK(parse_task_kind("reverse") == TaskKind::reverse);
  CHECK(task_name(TaskKind::mod_add) == "mod_add");
  CHECK_THROWS_WITH_AS(parse_task_kind("add"), doctest::Contains("unknown task \"add\""), Error);

  Vocab v({"x", "y"});  // x = 5, y = 6
  Example ex{{5, 6, kSepId, kMaskId, kMaskId}, {kIgnoreIndex, kIgnoreIndex, kIgnoreIndex, 6, 5}};
  CHECK(format_example(ex, v, v) == "input:  x y <sep> <mask> <mask>\ntarget: _ _ _ y x");

  CHECK_THROWS_WITH_AS(SequenceTask(TaskKind::copy, {.symbols = ""}), doctest::Contains("copy: symbols is empty"),
                       Error);
  CHECK_THROWS_WITH_AS(SequenceTask(TaskKind::sort, {.symbols = "aba"}),
                       doctest::Contains("sort: symbols \"aba\" has a repeated character"), Error);
  CHECK_THROWS_WITH_AS(SequenceTask(TaskKind::reverse, {.min_len = 5, .max_len = 4}),
                       doctest::Contains("need 1 <= min_len <= max_len, got min_len 5 and max_len 4"), Error);
  CHECK_THROWS_WITH_AS(SequenceTask(TaskKind::copy, {.min_len = 0}), doctest::Contains("SequenceTask: copy"), Error);
  CHECK_THROWS_WITH_AS(SequenceTask(TaskKind::mod_add, {.modulus = 1}),
                       doctest::Contains("mod_add: modulus must be in [2, 2^40], got 1"), Error);
  CHECK_THROWS_WITH_AS(SequenceTask(TaskKind::copy).examples(-1, 0), doctest::Contains("count must be >= 0"), Error);
}
