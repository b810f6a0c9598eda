#include "data/labelled_file.h"
#include "data/temp_file.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;

namespace {
const char* kTsv = "the cat sat\tDET NOUN VERB\na  dog\tDET NOUN\r\nthe dog ran\tDET NOUN VERB";
}

TEST_CASE("labelled files: TSV and JSONL parse to the same token pairs") {
  std::vector<TokenPair> tsv = parse_labelled(kTsv, FileFormat::tsv, "t.tsv");
  REQUIRE(tsv.size() == 3);
  CHECK(tsv[0] == TokenPair{{"the", "cat", "sat"}, {"DET", "NOUN", "VERB"}});
  CHECK(tsv[1] == TokenPair{{"a", "dog"}, {"DET", "NOUN"}});  // runs of spaces, CRLF
  const char* jsonl =
      "{\"input\": [\"the\", \"cat\", \"sat\"], \"output\": [\"DET\", \"NOUN\", \"VERB\"]}\n"
      "{\"output\": [\"DET\", \"NOUN\"], \"input\": [\"a\", \"dog\"]}\n"
      "{\"input\": [\"the\", \"dog\", \"ran\"], \"output\": [\"DET\", \"NOUN\", \"VERB\"]}\n";
  CHECK(parse_labelled(jsonl, FileFormat::jsonl, "t.jsonl") == tsv);
  // JSON numbers are tokens as written in the file; tokens may hold spaces and any UTF-8
  std::vector<TokenPair> nums =
      parse_labelled("{\"input\": [1, \"new york\", \"日本\"], \"output\": [2.5, \"B-LOC\", 3]}", FileFormat::jsonl, "n");
  CHECK(nums[0] == TokenPair{{"1", "new york", "日本"}, {"2.5", "B-LOC", "3"}});
}

TEST_CASE("labelled files: malformed lines throw naming file and line") {
  auto tsv_error = [](const char* content) { return parse_labelled(content, FileFormat::tsv, "tags.tsv"); };
  CHECK_THROWS_WITH_AS(tsv_error("a b\tX Y\nthe cat sat\tDET NOUN\n"),
                       doctest::Contains("read_labelled_file: tags.tsv:2: input has 3 tokens but output has 2"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a b\tX Y\n\na\tX\n"), doctest::Contains("tags.tsv:2: empty line"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a\tX\n  \t \nb\tY\n"), doctest::Contains("tags.tsv:2: empty line"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a b X Y\n"), doctest::Contains("tags.tsv:1: expected input tokens, one tab"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a\tX\tY\n"), doctest::Contains("tags.tsv:1: expected input tokens, one tab"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a\tX\n \tX\n"), doctest::Contains("tags.tsv:2: the input has no tokens"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a\t \n"), doctest::Contains("tags.tsv:1: the output has no tokens"), Error);
  CHECK_THROWS_WITH_AS(tsv_error("a\tX\n\xFF\tY\n"), doctest::Contains("tags.tsv:2: invalid UTF-8"), Error);

  auto jsonl_error = [](const char* content) { return parse_labelled(content, FileFormat::jsonl, "d.jsonl"); };
  const char* good = "{\"input\": [\"a\"], \"output\": [\"X\"]}\n";
  CHECK_THROWS_WITH_AS(jsonl_error((std::string(good) + "{\"input\": [\"a\"], \"output\": [\"X\"\n").c_str()),
                       doctest::Contains("read_labelled_file: d.jsonl:2: bad JSON"), Error);
  CHECK_THROWS_WITH_AS(jsonl_error((std::string(good) + good + "{\"input\": [\"a\", \"b\"], \"output\": [\"X\"]}").c_str()),
                       doctest::Contains("d.jsonl:3: input has 2 tokens but output has 1"), Error);
  CHECK_THROWS_WITH_AS(jsonl_error("{\"input\": [], \"output\": []}"), doctest::Contains("d.jsonl:1: the input has no tokens"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl_error("{\"input\": [\"a\"]}"), doctest::Contains("d.jsonl:1: \"output\" must be an array"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl_error("{\"input\": \"a\", \"output\": [\"X\"]}"),
                       doctest::Contains("d.jsonl:1: \"input\" must be an array"), Error);
  CHECK_THROWS_WITH_AS(jsonl_error("[\"a\", \"X\"]"), doctest::Contains("d.jsonl:1: expected a JSON object"), Error);
  CHECK_THROWS_WITH_AS(jsonl_error("{\"input\": [\"a\", null], \"output\": [\"X\", \"Y\"]}"),
                       doctest::Contains("d.jsonl:1: input[1] must be a string or a number, got null"), Error);
  CHECK_THROWS_WITH_AS(jsonl_error("{\"input\": [\"\"], \"output\": [\"X\"]}"),
                       doctest::Contains("d.jsonl:1: input[0] is an empty string"), Error);
  CHECK_THROWS_WITH_AS(jsonl_error((std::string(good) + "\n" + good).c_str()), doctest::Contains("d.jsonl:2: empty line"),
                       Error);
}

TEST_CASE("labelled files: separate input and output vocabularies from the training examples") {
  LabelledTask task = labelled_task(parse_labelled(kTsv, FileFormat::tsv, "t.tsv"));
  // input tokens sorted: a cat dog ran sat the -> 5..10; output: DET NOUN VERB -> 5..7
  CHECK(task.input_vocab.size() == kNumReserved + 6);
  CHECK(task.output_vocab.size() == kNumReserved + 3);
  CHECK(task.input_vocab.id("a") == 5);
  CHECK(task.input_vocab.id("the") == 10);
  CHECK(task.output_vocab.id("VERB") == 7);
  REQUIRE(task.train.size() == 3);
  CHECK(task.train[0] == Example{{10, 6, 9}, {5, 6, 7}});
  CHECK(task.train[1] == Example{{5, 7}, {5, 6}});
  CHECK(task.val.empty());
  CHECK_THROWS_WITH_AS(labelled_task({}), doctest::Contains("labelled_task: there are no training examples"), Error);
}

TEST_CASE("labelled files: loading from files, split by a seeded fraction or given as two files") {
  std::string many;  // line i: the word w(i % 4), then the line's own word y<i>: the output is which line it is
  for (int i = 0; i < 40; ++i) many += fmt::format("w{} y\tA L{}\n", i % 4, i);
  TempFile file("many.tsv", many);
  // The validation share's outputs L<i> are on one line each: training has none of them.
  CHECK_THROWS_WITH_AS(load_labelled_task(file.path(), 0.25, 11),
                       doctest::Contains("is not in the model's output vocabulary (the 31 tokens of its training data)"),
                       Error);
  std::string known;  // every token on every line but for the order: split 30 / 10
  for (int i = 0; i < 40; ++i) known += fmt::format("w{} w{}\tA B\n", i % 4, (i + 1) % 4);
  TempFile file2("known.tsv", known);
  LabelledTask a = load_labelled_task(file2.path(), 0.25, 11);
  CHECK(a.train.size() == 30);
  CHECK(a.val.size() == 10);
  LabelledTask b = load_labelled_task(file2.path(), 0.25, 11);
  CHECK(a.train == b.train);
  CHECK(a.val == b.val);
  CHECK(a.input_vocab == b.input_vocab);
  LabelledTask c = load_labelled_task(file2.path(), 0.25, 12);
  CHECK((c.train != a.train || c.val != a.val));  // another seed holds out other lines

  TempFile train("train.jsonl", "{\"input\": [\"a\", \"b\"], \"output\": [\"X\", \"Y\"]}\n");
  TempFile val("val.jsonl", "{\"input\": [\"b\", \"a\"], \"output\": [\"Y\", \"X\"]}\n");
  LabelledTask two = load_labelled_task(train.path(), val.path());
  CHECK(two.train == std::vector<Example>{{{5, 6}, {5, 6}}});
  CHECK(two.val == std::vector<Example>{{{6, 5}, {6, 5}}});
  // A separate validation file is encoded whole with training's vocabularies: no <unk>.
  TempFile unknown("unknown.jsonl", "{\"input\": [\"b\"], \"output\": [\"Y\"]}\n"
                                    "{\"input\": [\"b\", \"c\"], \"output\": [\"Y\", \"X\"]}\n");
  CHECK_THROWS_WITH_AS(load_labelled_task(train.path(), unknown.path()),
                       doctest::Contains("unknown.jsonl:2: input token \"c\" (position 2) is not in the model's input "
                                         "vocabulary (the 2 tokens of its training data)"),
                       Error);

  TempFile empty("empty.tsv", "");
  CHECK_THROWS_WITH_AS(read_labelled_file(empty.path()), doctest::Contains("empty.tsv: the file has no examples"), Error);
  TempFile csv("data.csv", "a,X\n");
  CHECK_THROWS_WITH_AS(read_labelled_file(csv.path()), doctest::Contains("data.csv: unknown format"), Error);
  TempFile bad("bad.tsv", "a b\tX Y\nc\tX Y\n");
  CHECK_THROWS_WITH_AS(load_labelled_task(bad.path(), 0.5, 0), doctest::Contains("bad.tsv:2: input has 1 tokens"), Error);
  CHECK_THROWS_WITH_AS(load_labelled_task(file.path(), 1.5, 0), doctest::Contains("val_fraction must be in [0, 1)"),
                       Error);
}

TEST_CASE("labelled files: deep nesting and numbers out of range in a JSONL line are errors naming the line") {
  auto jsonl_error = [](const std::string& content) { return parse_labelled(content, FileFormat::jsonl, "d.jsonl"); };
  std::string deep = "{\"input\": [" + std::string(100000, '[') + std::string(100000, ']') + "], \"output\": [\"X\"]}";
  CHECK_THROWS_WITH_AS(jsonl_error(deep),
                       doctest::Contains("read_labelled_file: d.jsonl:1: arrays and objects nest more than 8 deep "
                                         "(at column 18)"),
                       Error);
  CHECK_THROWS_WITH_AS(jsonl_error("{\"input\": [1e400], \"output\": [\"X\"]}"),
                       doctest::Contains("d.jsonl:1: bad JSON: [json.exception.out_of_range.406] number overflow"),
                       Error);
  // Six deep passes the scan; the token that is an array is named by its type.
  std::string six = "{\"input\": [[[[[[\"" + std::string(1000, 'a') + "\"]]]]]], \"output\": [\"X\"]}";
  try {
    jsonl_error(six);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("d.jsonl:1: input[0] must be a string or a number, got array") != std::string::npos);
    CHECK(std::string(e.what()).size() < 200);
  }
}

TEST_CASE("labelled files: blank lines at the end are allowed, in the middle they are an error") {
  for (const char* content : {"a\tX\n\n", "a\tX\n\n\n", "a\tX\r\n\r\n", "a\tX\n  \n\t\n"}) {
    CAPTURE(content);
    CHECK(parse_labelled(content, FileFormat::tsv, "t.tsv") == std::vector<TokenPair>{{{"a"}, {"X"}}});
  }
  CHECK(parse_labelled("{\"input\": [\"a\"], \"output\": [\"X\"]}\n\n", FileFormat::jsonl, "t.jsonl").size() == 1);
  CHECK_THROWS_WITH_AS(parse_labelled("a\tX\n\nb\tY\n\n", FileFormat::tsv, "t.tsv"),
                       doctest::Contains("t.tsv:2: empty line"), Error);
  CHECK_THROWS_WITH_AS(parse_labelled("a\tX\t\n\n", FileFormat::tsv, "t.tsv"),
                       doctest::Contains("t.tsv:1: expected input tokens, one tab"), Error);
  TempFile blank("blank.tsv", "\n\n");
  CHECK_THROWS_WITH_AS(read_labelled_file(blank.path()), doctest::Contains("blank.tsv: the file has no examples"), Error);
}

TEST_CASE("labelled files: encode_labelled keeps the vocabularies' ids and names an unknown token's line") {
  const Vocab in({"a", "b", "c"}), out({"X", "Y"});
  const std::vector<TokenPair> pairs = parse_labelled("a b\tX Y\nc\tY\nc a\tY Z\n", FileFormat::tsv, "test.tsv");
  CHECK_THROWS_WITH_AS(encode_labelled(pairs, in, out, "test.tsv"),
                       doctest::Contains("encode_labelled: test.tsv:3: output token \"Z\" (position 2) is not in the "
                                         "model's output vocabulary (the 2 tokens of its training data)"),
                       Error);
  const std::vector<Example> two = encode_labelled({pairs[0], pairs[1]}, in, out, "test.tsv");
  CHECK(two == std::vector<Example>{{{5, 6}, {5, 6}}, {{7}, {6}}});
  // A subset of the vocabulary keeps its ids (they are not renumbered from the file).
  CHECK(encode_labelled({pairs[1]}, in, out, "test.tsv") == std::vector<Example>{{{7}, {6}}});
  CHECK_THROWS_WITH_AS(encode_labelled({{{"a b"}, {"X"}}}, in, out, "s.jsonl"),
                       doctest::Contains("s.jsonl:1: input token \"a\\sb\" (position 1)"), Error);
}

TEST_CASE("labelled files: the <bos> position is not scored") {
  const std::vector<TokenPair> pairs =
      parse_labelled("<bos> a b\tBOS X Y\n<bos> b\t<bos> Y\n", FileFormat::tsv, "bos.tsv");
  const LabelledTask task = labelled_task(pairs);
  CHECK(task.input_vocab.id("<bos>") == kBosId);
  REQUIRE(task.train.size() == 2);
  CHECK(task.train[0].target[0] == kIgnoreIndex);
  CHECK(task.train[0].target[1] == task.output_vocab.id("X"));
  CHECK(task.train[1].target == std::vector<int64_t>{kIgnoreIndex, task.output_vocab.id("Y")});
  CHECK(encode_labelled(pairs, task.input_vocab, task.output_vocab, "bos.tsv") == task.train);
}
