// What a token is (issue 32, item 15): the text as written in the file. A JSON number keeps its
// text, a byte order mark is no part of the first token, a key twice in one object and a
// reserved name are errors naming the line, and a token training never saw is an error
// wherever it appears, never <unk>.
#include "data/char_lm.h"
#include "data/char_tokenizer.h"
#include "data/labelled_file.h"
#include "data/seq2seq_file.h"
#include "data/temp_file.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;

namespace {

std::vector<TokenPair> jsonl_pairs(const std::string& content) {
  return parse_labelled(content, FileFormat::jsonl, "t.jsonl");
}

}  // namespace

TEST_CASE("token rules: a JSON number is the token written in the file") {
  const std::vector<TokenPair> pairs = jsonl_pairs(
      "{\"input\": [1.0, 1e0, 1e23, -0, 0, -7, 18446744073709551616, 0.10], \"output\": [1, 2, 3, 4, 5, 6, 7, 8]}");
  REQUIRE(pairs.size() == 1);
  CHECK(pairs[0].input ==
        std::vector<std::string>{"1.0", "1e0", "1e23", "-0", "0", "-7", "18446744073709551616", "0.10"});
  const LabelledTask task = labelled_task(pairs);
  CHECK(task.input_vocab.size() == kNumReserved + 8);  // eight different tokens
}

TEST_CASE("token rules: a key twice in one object is an error naming the line") {
  CHECK_THROWS_WITH_AS(jsonl_pairs("{\"input\": [\"a\"], \"output\": [\"X\"]}\n"
                             "{\"input\": [\"a\"], \"output\": [\"X\"], \"input\": [\"b\"]}\n"),
                       doctest::Contains("read_labelled_file: t.jsonl:2: the key \"input\" appears twice in one "
                                         "object"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl_pairs("{\"input\": [\"a\"], \"output\": [\"X\"], \"meta\": {\"k\": 1, \"k\": 2}}"),
                       doctest::Contains("t.jsonl:1: the key \"k\" appears twice"), Error);
  CHECK_THROWS_WITH_AS(parse_seq2seq("{\"input\": \"a\", \"output\": \"b\", \"output\": \"c\"}", FileFormat::jsonl,
                                     "p.jsonl"),
                       doctest::Contains("read_seq2seq_file: p.jsonl:1: the key \"output\" appears twice"), Error);
}

TEST_CASE("token rules: a byte order mark at the start of a file is no part of the first token") {
  const std::string bom = "\xEF\xBB\xBF";
  CHECK(parse_labelled(bom + "a b\tX Y\n", FileFormat::tsv, "t.tsv")[0].input == std::vector<std::string>{"a", "b"});
  CHECK(jsonl_pairs(bom + "{\"input\": [\"a\"], \"output\": [\"X\"]}")[0].input == std::vector<std::string>{"a"});
  CHECK(parse_seq2seq(bom + "ab\tc\n", FileFormat::tsv, "p.tsv")[0].input == "ab");
  TempFile tsv("bom.tsv", bom + "a\tX\n");
  CHECK(read_labelled_file(tsv.path())[0].input == std::vector<std::string>{"a"});
  TempFile text("bom.txt", bom + "abcabcabc");
  const CharLMCorpus corpus = char_lm_corpus_from_file(text.path(), 2, 0.0);
  CHECK(corpus.tokenizer.size() == kNumReserved + 3);  // a, b, c: no U+FEFF
  // Only at the start: elsewhere it is a character like any other.
  CHECK(parse_labelled("a\tX\n" + bom + "a\tX\n", FileFormat::tsv, "t.tsv")[1].input[0] == bom + "a");
}

TEST_CASE("token rules: a reserved name in a labelled file is an error naming the line, <bos> but as a first token") {
  for (const char* name : {"<pad>", "<unk>", "<sep>", "<mask>"}) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(parse_labelled(fmt::format("a\tX\na {}\tX Y\n", name), FileFormat::tsv, "r.tsv"),
                         doctest::Contains(fmt::format("read_labelled_file: r.tsv:2: input token {} (position 2) is a "
                                                       "reserved name", name).c_str()),
                         Error);
    CHECK_THROWS_WITH_AS(jsonl_pairs(fmt::format("{{\"input\": [\"a\"], \"output\": [\"{}\"]}}", name)),
                         doctest::Contains(
                             fmt::format("t.jsonl:1: output token {} (position 1) is a reserved name", name).c_str()),
                         Error);
  }
  CHECK(parse_labelled("<bos> a\t<bos> X\n", FileFormat::tsv, "r.tsv").size() == 1);  // the documented start marker
  CHECK_THROWS_WITH_AS(parse_labelled("a\tX\n<bos> a <bos>\tX Y Z\n", FileFormat::tsv, "r.tsv"),
                       doctest::Contains("r.tsv:2: input token <bos> (position 3) is a reserved name: <bos> marks a "
                                         "sequence's start and may only be its first token"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl_pairs(R"({"input": ["<bos>", "a"], "output": ["X", "<bos>"]})"),
                       doctest::Contains("t.jsonl:1: output token <bos> (position 2) is a reserved name"), Error);
}

TEST_CASE("token rules: a character the tokenizer lacks is an error naming the source and line, never <unk>") {
  const CharTokenizer tokenizer = CharTokenizer::from_text("ab\nc");  // \n a b c: ids 5 6 7 8
  CHECK(tokenizer.encode("cab") == std::vector<int64_t>{8, 6, 7});
  CHECK_THROWS_WITH_AS(tokenizer.encode("ab\nad", "--prompt"),
                       doctest::Contains("CharTokenizer: --prompt:2: the character \"d\" is not in the model's "
                                         "vocabulary (the 4 characters of its training text)"),
                       Error);
}
