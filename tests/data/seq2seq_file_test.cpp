// Sequence-to-sequence pairs from .tsv and .jsonl files: what each line gives, and every kind of
// bad line refused naming the file, the line, the field and the limit.
#include <doctest/doctest.h>

#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/io/input_file.h"
#include "data/seq2seq_file.h"
#include "data/seq2seq_tokenizer.h"
#include "temp_file.h"

using namespace tg;
using data::FileFormat;
using data::Seq2SeqPair;

namespace {

std::vector<Seq2SeqPair> tsv(const std::string& text) { return data::parse_seq2seq(text, FileFormat::tsv, "p.tsv"); }
std::vector<Seq2SeqPair> jsonl(const std::string& text) {
  return data::parse_seq2seq(text, FileFormat::jsonl, "p.jsonl");
}
// The same files read by a run whose tokens are separated by `sep`.
std::vector<Seq2SeqPair> tsv_words(const std::string& text, const std::string& sep = " ") {
  return data::parse_seq2seq(text, FileFormat::tsv, "p.tsv", sep);
}
std::vector<Seq2SeqPair> jsonl_words(const std::string& text, const std::string& sep = " ") {
  return data::parse_seq2seq(text, FileFormat::jsonl, "p.jsonl", sep);
}
// One JSONL line of token lists.
std::string lists(const std::string& input, const std::string& output) {
  return "{\"input\": [" + input + "], \"output\": [" + output + "]}\n";
}

}  // namespace

TEST_CASE("seq2seq file: tsv and jsonl lines give input/output pairs of any lengths") {
  CHECK(tsv("12+345\t357\nthree hundred four\t304\r\n\n\n") ==
        std::vector<Seq2SeqPair>{{"12+345", "357"}, {"three hundred four", "304"}});
  CHECK(jsonl("{\"input\": \"né a\", \"output\": \"x\"}\n{\"output\": \"long output\", \"input\": \"i\"}\n") ==
        std::vector<Seq2SeqPair>{{"né a", "x"}, {"i", "long output"}});
  CHECK(tsv("").empty());
  const std::string longest(data::kMaxSeq2SeqTokens, 'a');
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
  const std::string too_long(data::kMaxSeq2SeqTokens + 1, 'a');
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
  CHECK_THROWS_WITH_AS(jsonl("{\"input\": \"a\", \"output\": 5}\n"),
                       doctest::Contains("p.jsonl:1: output must be a string or a list of tokens, got number"), Error);
  CHECK_THROWS_WITH_AS(jsonl("{\"input\": \"a\", \"output\": \"b\"}\n{\"input\": \n"),
                       doctest::Contains("p.jsonl:2: bad JSON"), Error);
  CHECK_THROWS_WITH_AS(jsonl("[\"a\", \"b\"]\n"), doctest::Contains("p.jsonl:1: expected a JSON object"), Error);
  CHECK_THROWS_WITH_AS(jsonl(std::string(50, '[') + std::string(50, ']') + "\n"),
                       doctest::Contains("p.jsonl:1: arrays and objects nest more than 8 deep"), Error);
}

TEST_CASE("seq2seq file: token lists, and text split by --token-sep, give word-level pairs") {
  // A pair is its tokens joined by the separator: one between tokens, none at the ends.
  CHECK(jsonl_words(lists("\"three\", \"one\"", "\"1\", \"3\"") + lists("\"ten\", 2.0", "\"0\", 1")) ==
        std::vector<Seq2SeqPair>{{"three one", "1 3"}, {"ten 2.0", "0 1"}});  // a number is its text
  CHECK(tsv_words("three  one \t1 3\n") == std::vector<Seq2SeqPair>{{"three one", "1 3"}});
  CHECK(tsv_words("a,b,,c,\tx\n", ",") == std::vector<Seq2SeqPair>{{"a,b,c", "x"}});
  CHECK(jsonl_words("{\"input\": \"né  a\", \"output\": \"x\"}\n") == std::vector<Seq2SeqPair>{{"né a", "x"}});
  // Without a separator the tokens are characters: a list of characters is their text.
  CHECK(jsonl(lists("\"n\", \"é\"", "\"x\"")) == std::vector<Seq2SeqPair>{{"né", "x"}});
  const std::vector<std::string> many(data::kMaxSeq2SeqTokens, "\"ab\"");
  CHECK(data::split_tokens(jsonl_words(lists(fmt::format("{}", fmt::join(many, ",")), "\"x\"")).at(0).input, " ")
            .size() == many.size());

  test::TempFile listed("pairs.jsonl", "\n" + lists("\"a\"", "\"b\""));
  CHECK(data::pair_file_gives_lists(InputFile("test", listed.path())));
  test::TempFile strings("strings.jsonl", "{\"input\": \"a\", \"output\": \"b\"}\n");
  CHECK_FALSE(data::pair_file_gives_lists(InputFile("test", strings.path())));
  test::TempFile tsv_file("pairs.tsv", "a b\tc\n");
  CHECK_FALSE(data::pair_file_gives_lists(InputFile("test", tsv_file.path())));
  CHECK(data::read_seq2seq_file(tsv_file.path(), " ") == std::vector<Seq2SeqPair>{{"a b", "c"}});
}

TEST_CASE("seq2seq tokenizer: words sorted after the reserved tokens, decoded with one separator between them") {
  const auto words = data::PairTokenizer::from_pairs({{"three one", "1 3"}, {"one", "1"}}, " ");
  CHECK(words.vocab().tokens() ==
        std::vector<std::string>{"<pad>", "<unk>", "<bos>", "<sep>", "<mask>", "1", "3", "one", "three"});
  CHECK(words.tokens(" three  one") == std::vector<std::string>{"three", "one"});
  CHECK(words.decode({8, 7}) == "three one");
  CHECK(std::string(words.unit()) == "tokens");
  const auto chars = data::PairTokenizer::from_pairs({{"ba", "c"}}, "");
  CHECK(chars.vocab() == data::CharTokenizer::from_text("bac").vocab());  // as character runs always had
  CHECK(chars.decode({6, 5}) == "ba");
  CHECK(std::string(chars.unit()) == "characters");
}

TEST_CASE("seq2seq file: bad token lists and word sides name the file, the line, the field and the limit") {
  const std::string a = "\"a\"";
  CHECK_THROWS_WITH_AS(jsonl_words(lists(a, a) + "{\"input\": \"a\", \"output\": \"b\"}\n"),
                       doctest::Contains("p.jsonl:2: input is a string, but the file's first pair gives lists: a file "
                                         "gives every side in one form"), Error);
  CHECK_THROWS_WITH_AS(jsonl_words("{\"input\": [\"a\"], \"output\": \"b\"}\n"),
                       doctest::Contains("p.jsonl:1: output is a string, but the file's first pair gives lists"), Error);
  CHECK_THROWS_WITH_AS(jsonl_words("{\"input\": \"a\", \"output\": [\"b\"]}\n"),
                       doctest::Contains("p.jsonl:1: output is a list of tokens, but the file's first pair gives "
                                         "strings"), Error);
  CHECK_THROWS_WITH_AS(jsonl_words(lists("", a)), doctest::Contains("p.jsonl:1: input has no tokens"), Error);
  CHECK_THROWS_WITH_AS(tsv_words(" \tb\n"), doctest::Contains("p.tsv:1: input has no tokens"), Error);
  CHECK_THROWS_WITH_AS(jsonl_words(lists(a, "\"b\", \"\"")), doctest::Contains("p.jsonl:1: output[1] is an empty string"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl_words(lists("\"a\", {\"b\": 1}", a)),
                       doctest::Contains("p.jsonl:1: input[1] must be a string or a number, got object"), Error);
  const std::vector<std::string> too_many(data::kMaxSeq2SeqTokens + 1, a);
  CHECK_THROWS_WITH_AS(jsonl_words(lists(a, fmt::format("{}", fmt::join(too_many, ",")))),
                       doctest::Contains("p.jsonl:1: output has 1025 tokens, more than the limit of 1024"), Error);
  const std::string long_token(data::kMaxSeq2SeqTokenBytes + 1, 'x');
  CHECK_THROWS_WITH_AS(jsonl_words(lists("\"" + long_token + "\"", a)),
                       doctest::Contains("p.jsonl:1: input[0] has 257 bytes, more than the limit of 256"), Error);
  CHECK_THROWS_WITH_AS(tsv_words("a " + long_token + "\tb\n"),
                       doctest::Contains("p.tsv:1: input token 2 has 257 bytes, more than the limit of 256"), Error);
  CHECK_THROWS_WITH_AS(jsonl_words(lists("\"a b\"", a)),
                       doctest::Contains("p.jsonl:1: input[0] \"a b\" contains the token separator \" \""), Error);
  CHECK_THROWS_WITH_AS(jsonl_words(lists(a, "\"b\", \"<bos>\"")),
                       doctest::Contains("p.jsonl:1: output[1] <bos> is a reserved name"), Error);
  CHECK_THROWS_WITH_AS(tsv_words("a <pad>\tb\n"), doctest::Contains("p.tsv:1: input token 2 <pad> is a reserved name"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl(lists("\"three\"", a)),
                       doctest::Contains("p.jsonl:1: input[0] \"three\" is not one character: without a token "
                                         "separator the tokens are characters"), Error);
  CHECK_THROWS_WITH_AS(jsonl_words(lists("\"a\\udc00\"", a)), doctest::Contains("p.jsonl:1"), Error);
}
