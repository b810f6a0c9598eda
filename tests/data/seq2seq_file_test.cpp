// Sequence-to-sequence pairs from .tsv and .jsonl files: what each line gives, and every kind of
// bad line refused naming the file, the line, the field and the limit.
#include <doctest/doctest.h>

#include <string>

#include "core/error.h"
#include "data/seq2seq_file.h"
#include "temp_file.h"

using namespace tg;
using data::FileFormat;
using data::Seq2SeqPair;

namespace {

std::vector<Seq2SeqPair> tsv(const std::string& text) { return data::parse_seq2seq(text, FileFormat::tsv, "p.tsv"); }
std::vector<Seq2SeqPair> jsonl(const std::string& text) {
  return data::parse_seq2seq(text, FileFormat::jsonl, "p.jsonl");
}

}  // namespace

TEST_CASE("seq2seq file: tsv and jsonl lines give input/output pairs of any lengths") {
  CHECK(tsv("12+345\t357\nthree hundred four\t304\r\n\n\n") ==
        std::vector<Seq2SeqPair>{{"12+345", "357"}, {"three hundred four", "304"}});
  CHECK(jsonl("{\"input\": \"né a\", \"output\": \"x\"}\n{\"output\": \"long output\", \"input\": \"i\"}\n") ==
        std::vector<Seq2SeqPair>{{"né a", "x"}, {"i", "long output"}});
  CHECK(tsv("").empty());
  const std::string longest(data::kMaxSeq2SeqChars, 'a');
  CHECK(tsv(longest + "\tb\n").at(0).input == longest);

  test::TempFile file("pairs.jsonl", "{\"input\": \"ab\", \"output\": \"ba\"}\n");
  CHECK(data::read_seq2seq_file(file.path()) == std::vector<Seq2SeqPair>{{"ab", "ba"}});
  test::TempFile empty("empty.tsv", "\n");
  CHECK_THROWS_WITH_AS(data::read_seq2seq_file(empty.path()), doctest::Contains("the file has no pairs"), Error);
  test::TempFile other("pairs.csv", "a,b\n");
  CHECK_THROWS_WITH_AS(data::read_seq2seq_file(other.path()), doctest::Contains("expected a .tsv or .jsonl file"),
                       Error);
}

TEST_CASE("seq2seq file: bad lines name the file, the line, the field and the limit") {
  const std::string too_long(data::kMaxSeq2SeqChars + 1, 'a');
  CHECK_THROWS_WITH_AS(tsv("a\tb\nab\n"), doctest::Contains("p.tsv:2: expected the input, one tab, the output"), Error);
  CHECK_THROWS_WITH_AS(tsv("a\tb\tc\n"), doctest::Contains("p.tsv:1: expected the input, one tab, the output"), Error);
  CHECK_THROWS_WITH_AS(tsv("a\tb\n\nc\td\n"), doctest::Contains("p.tsv:2: empty line"), Error);
  CHECK_THROWS_WITH_AS(tsv("\tb\n"), doctest::Contains("p.tsv:1: input is empty"), Error);
  CHECK_THROWS_WITH_AS(tsv("a\t\n"), doctest::Contains("p.tsv:1: output is empty"), Error);
  CHECK_THROWS_WITH_AS(tsv("a\tb\nc\t" + too_long + "\n"),
                       doctest::Contains("p.tsv:2: output has 1025 characters, more than the limit of 1024"), Error);
  CHECK_THROWS_WITH_AS(tsv(too_long + "\tb\n"),
                       doctest::Contains("p.tsv:1: input has 1025 characters, more than the limit of 1024"), Error);
  CHECK_THROWS_WITH_AS(tsv("a\xff\tb\n"), doctest::Contains("p.tsv"), Error);  // invalid UTF-8
  CHECK_THROWS_WITH_AS(jsonl("{\"input\": \"a\"}\n"), doctest::Contains("p.jsonl:1: output is missing"), Error);
  CHECK_THROWS_WITH_AS(jsonl("{\"input\": [\"a\"], \"output\": \"b\"}\n"),
                       doctest::Contains("p.jsonl:1: input must be a string, got array"), Error);
  CHECK_THROWS_WITH_AS(jsonl("{\"input\": \"a\", \"output\": \"b\"}\n{\"input\": \n"),
                       doctest::Contains("p.jsonl:2: bad JSON"), Error);
  CHECK_THROWS_WITH_AS(jsonl("[\"a\", \"b\"]\n"), doctest::Contains("p.jsonl:1: expected a JSON object"), Error);
  CHECK_THROWS_WITH_AS(jsonl(std::string(50, '[') + std::string(50, ']') + "\n"),
                       doctest::Contains("p.jsonl:1: arrays and objects nest more than 8 deep"), Error);
}
