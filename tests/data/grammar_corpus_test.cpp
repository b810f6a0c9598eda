#include "data/char_tokenizer.h"
#include "data/grammar_corpus.h"
#include "data/text.h"
#include "data/temp_file.h"
#include "test_util.h"

#include <set>
#include <sstream>

using namespace tg;
using namespace tg::data;
using tg::test::TempFile;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

TEST_CASE("grammar corpus: deterministic by seed") {
  const std::string text = grammar_corpus(300, 5);
  CHECK(text == grammar_corpus(300, 5));
  CHECK(text != grammar_corpus(300, 6));
  CHECK(grammar_corpus(0, 5).empty());
  // Fewer sentences from the same seed are a prefix: the generator just stops earlier.
  CHECK(text.starts_with(grammar_corpus(100, 5)));
  CHECK_THROWS_WITH_AS(grammar_corpus(-1), doctest::Contains("grammar_corpus: sentences must be >= 0"), Error);
}

TEST_CASE("grammar corpus: one well-formed, varied sentence per line") {
  const std::string text = grammar_corpus(2000, 0);
  std::vector<std::string> lines = lines_of(text);
  CHECK(lines.size() == 2000);
  CHECK((text.ends_with(" .\n") || text.ends_with(" ?\n")));
  std::set<std::string> distinct(lines.begin(), lines.end()), vocabulary;
  size_t questions = 0, max_words = 0, agreements = 0;
  for (const std::string& line : lines) {
    CAPTURE(line);
    std::vector<std::string> words = words_of(line);
    REQUIRE(words.size() >= 3);  // at least "name verb ."
    max_words = std::max(max_words, words.size());
    CHECK((words.back() == "." || words.back() == "?"));
    questions += words.back() == "?";
    vocabulary.insert(words.begin(), words.end());
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      // a/an agreement with the next word's first letter
      bool vowel = std::string("aeiou").find(words[i + 1][0]) != std::string::npos;
      if (words[i] == "a") CHECK(!vowel);
      if (words[i] == "an") CHECK(vowel);
    }
    // number agreement where a statement starts "Det Noun Verb"
    if (words.back() == "." && (words[1] == "cat" || words[1] == "cats") && words[2] != "that") {
      ++agreements;
      if (words[1] == "cat") CHECK(words[2] != "see");
      if (words[1] == "cats") CHECK(words[2] != "sees");
    }
  }
  CHECK(distinct.size() > 1800);   // hardly any sentence repeats
  CHECK(vocabulary.size() > 100);  // nouns in two numbers, verbs in two forms, adjectives, ...
  CHECK(questions > 100);          // about 10% are questions
  CHECK(questions < 350);
  CHECK(max_words > 15);           // nesting makes some sentences long
  CHECK(agreements > 10);
  // Characters: lowercase letters, space, '.', '?', newline
  CharTokenizer tok = CharTokenizer::from_text(text);
  CHECK(tok.size() - kNumReserved > 25);
  CHECK(tok.size() - kNumReserved <= 30);
}

TEST_CASE("grammar corpus: written to a file as generated") {
  TempFile file("corpus.txt");
  write_grammar_corpus(file.path(), 50, 3);
  CHECK(read_text_file(file.path()) == grammar_corpus(50, 3));
  CHECK_THROWS_WITH_AS(write_grammar_corpus("/nonexistent/dir/corpus.txt", 1, 0),
                       doctest::Contains("write_grammar_corpus: cannot write /nonexistent/dir/corpus.txt"), Error);
}
