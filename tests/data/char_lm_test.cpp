#include "data/char_lm.h"
#include "data/grammar_corpus.h"
#include "data/temp_file.h"
#include "test_util.h"

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;

TEST_CASE("char LM: each window's target is its input shifted by one character") {
  CharLMDataset ds({10, 11, 12, 13, 14, 15}, 3);  // 6 ids, T = 3: windows at t = 0, 1, 2
  CHECK(ds.size() == 3);
  CHECK(ds.get(0) == Example{{10, 11, 12}, {11, 12, 13}});
  CHECK(ds.get(2) == Example{{12, 13, 14}, {13, 14, 15}});
  CHECK_THROWS_WITH_AS(ds.get(3), doctest::Contains("CharLMDataset: index 3 is out of range for 3 windows"), Error);

  CharLMDataset strided({10, 11, 12, 13, 14, 15, 16}, 2, 2);  // t = 0, 2, 4
  CHECK(strided.size() == 3);
  CHECK(strided.get(1) == Example{{12, 13}, {13, 14}});
  CHECK(strided.get(2) == Example{{14, 15}, {15, 16}});

  CHECK(CharLMDataset({1, 2, 3}, 3).size() == 0);  // needs T + 1 ids
  CHECK(CharLMDataset({1, 2, 3, 4}, 3).size() == 1);
  CHECK_THROWS_WITH_AS(CharLMDataset({1, 2}, 0), doctest::Contains("block_size and stride must be >= 1"), Error);
  CHECK_THROWS_WITH_AS(CharLMDataset({1, -2}, 1), doctest::Contains("negative token id -2"), Error);
}

TEST_CASE("char LM: a corpus split by position, in characters") {
  // 10 characters (ü is one), val_fraction 0.3: train "abcüefg", val "hij"
  CharLMCorpus c = char_lm_corpus("abcüefghij", 2, 0.3);
  CHECK(c.tokenizer.size() == kNumReserved + 10);
  CHECK(c.train->size() == 5);  // 7 chars, T = 2
  CHECK(c.val->size() == 1);    // 3 chars
  Example first = c.train->get(0);
  CHECK(c.tokenizer.decode(first.input) == "ab");
  CHECK(c.tokenizer.decode(first.target) == "bc");
  CHECK(c.tokenizer.decode(c.train->get(2).input) == "cü");
  CHECK(c.tokenizer.decode(c.val->get(0).input) == "hi");
  CHECK(c.tokenizer.decode(c.val->get(0).target) == "ij");

  CharLMCorpus no_val = char_lm_corpus("abcdef", 3, 0.0);
  CHECK(no_val.train->size() == 3);
  CHECK(no_val.val->size() == 0);

  CHECK_THROWS_WITH_AS(char_lm_corpus("abcdef", 3, 0.3),
                       doctest::Contains("char_lm_corpus: text: 6 characters split 4 / 2 are too few for block_size 3"),
                       Error);
  CHECK_THROWS_WITH_AS(char_lm_corpus("abcdef", 3, 1.0), doctest::Contains("val_fraction must be in [0, 1)"), Error);
}

TEST_CASE("char LM: from a file, and the grammar corpus as default text") {
  TempFile file("lm.txt", grammar_corpus(200, 1));
  CharLMCorpus c = char_lm_corpus_from_file(file.path(), 16, 0.1);
  CHECK(c.train->size() > 100);
  CHECK(c.val->size() > 10);
  Example ex = c.val->get(c.val->size() - 1);
  CHECK(ex.input.size() == 16);
  CHECK(std::vector<int64_t>(ex.input.begin() + 1, ex.input.end()) ==
        std::vector<int64_t>(ex.target.begin(), ex.target.end() - 1));
  CHECK(c.tokenizer.decode({ex.target.back()}) == "\n");  // the last window ends the text

  TempFile bad("bad_utf8.txt", "fine\nbroken \xE6\x97 here\n");
  CHECK_THROWS_WITH_AS(char_lm_corpus_from_file(bad.path(), 2), doctest::Contains("bad_utf8.txt:2: invalid UTF-8"), Error);
  CHECK_THROWS_WITH_AS(char_lm_corpus_from_file("/nonexistent.txt", 2),
                       doctest::Contains("read_text_file: /nonexistent.txt: cannot open: No such file or directory"), Error);
}
