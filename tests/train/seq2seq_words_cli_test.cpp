// Word-level sequence-to-sequence pair files from the CLI: a .jsonl file of token lists trains a
// run whose tokens are words (the separator a space, stored in the run), which eval and sample
// decode with beam search and print as words; a .tsv file takes --token-sep; a bad separator or
// one a task does not read is refused naming the flag.
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/seq2seq_tasks.h"
#include "data/seq2seq_tokenizer.h"
#include "train/checkpoint.h"
#include "train_test_util.h"

using tg::test::run_cli;
using tg::test::TempDir;

namespace {

// A list of JSON strings: ["three", "hundred", "four"].
std::string json_list(const std::vector<std::string>& tokens) {
  return fmt::format("[{}]", fmt::join(tokens, ", "));
}

// number words -> its digits reversed, as token lists: ["four", "hundred", "two"] -> ["2", "0", "4"].
void write_number_word_pairs(const std::string& path, int count) {
  std::vector<int> numbers(1000);
  for (int i = 0; i < 1000; ++i) numbers[i] = i;
  std::shuffle(numbers.begin(), numbers.end(), std::mt19937(7));
  std::ofstream file(path);
  for (int i = 0; i < count; ++i) {
    std::vector<std::string> words, digits;
    for (const std::string& w : tg::data::split_tokens(tg::data::number_to_words(numbers[i]), " "))
      words.push_back(fmt::format("\"{}\"", w));
    const std::string n = std::to_string(numbers[i]);
    for (auto d = n.rbegin(); d != n.rend(); ++d) digits.push_back(fmt::format("\"{}\"", *d));
    file << fmt::format("{{\"input\": {}, \"output\": {}}}\n", json_list(words), json_list(digits));
  }
}

double metric(const std::string& out, const std::string& name) {
  const auto at = out.find(name + " ");
  REQUIRE(at != std::string::npos);
  return std::stod(out.substr(at + name.size() + 1));
}

}  // namespace

TEST_CASE("cli: a word-level pair file trains, and eval and sample decode it with beam search as words") {
  TempDir dir("seq2seq_words_cli");
  const std::string data = (dir.path() / "numbers.jsonl").string();
  write_number_word_pairs(data, 400);
  const std::string out = (dir.path() / "run").string();
  auto r = run_cli({"train", "--arch", "seq2seq", "--task", data, "--steps", "250", "--d-model", "32", "--heads", "2",
                    "--layers", "1", "--ff", "64", "--batch-size", "32", "--lr", "1e-2", "--eval-every", "0", "--out",
                    out});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("tokens, up to 4 positions; 40 validation pairs") != std::string::npos);
  const tg::train::Checkpoint c = tg::train::load_checkpoint(dir.path() / "run" / "checkpoint.safetensors");
  CHECK(c.config.token_sep == " ");  // token lists: the run's tokens are words, printed apart
  CHECK(c.input_vocab.contains("hundred"));
  CHECK(c.model_config.max_len == 4);  // "nine hundred ninety nine", and 3 digits + <eos>

  r = run_cli({"eval", out, "--beam", "3", "--show", "5"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("validation set, 40 pairs, beam search of width 3") != std::string::npos);
  // Chance is 1 in 11 per position (10 digits and <eos>), and about 1 in 1000 per output; the
  // run gets 0.97 and 0.9 (1.5 s of training).
  CHECK(metric(r.out, "token accuracy") > 0.8);
  CHECK(metric(r.out, "exact match") > 0.5);
  const std::regex words_line(R"(  input   [a-z]+( [a-z]+)*\n  target  \d( \d)*\n  model   \d( \d)*   (right|WRONG)\n)");
  CHECK(std::distance(std::sregex_iterator(r.out.begin(), r.out.end(), words_line), std::sregex_iterator()) == 5);

  r = run_cli({"sample", out, "--prompt", "three  hundred four ", "--beam", "4"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(std::regex_match(r.out, std::regex(R"(\d( \d){0,3}\n)")));
  r = run_cli({"sample", out, "--prompt", "three hundred fourr"});
  CHECK(r.status == 1);
  CHECK(r.err.find("--prompt: the token \"fourr\" is not in the model's vocabulary") != std::string::npos);
}

TEST_CASE("cli: a .tsv pair file takes --token-sep, stored in the run, and a bad separator is refused") {
  TempDir dir("seq2seq_tsv_words_cli");
  const std::string data = (dir.path() / "pairs.tsv").string();
  std::ofstream file(data);
  for (int i = 0; i < 20; ++i) file << fmt::format("one,two,{}\tuno,{}\n", i % 3, i % 2);
  file.close();
  const std::string out = (dir.path() / "run").string();
  auto r = run_cli({"train", "--arch", "seq2seq", "--task", data, "--token-sep", ",", "--steps", "2", "--d-model", "16",
                    "--heads", "2", "--layers", "1", "--ff", "32", "--eval-every", "0", "--out", out});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("  6 tokens, up to 3 positions") != std::string::npos);  // one two 0 1 2 uno
  CHECK(tg::train::load_checkpoint(dir.path() / "run" / "checkpoint.safetensors").config.token_sep == ",");
  r = run_cli({"eval", out, "--show", "1"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(std::regex_search(r.out, std::regex(R"(  input   one,two,\d\n  target  uno,\d\n)")));

  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{"train", "--task", "reverse", "--token-sep", " "}, "--token-sep: task reverse does not read it"},
      {{"train", "--task", "file", "--data", data, "--token-sep", " "},
       "--token-sep: splits the pair files of --arch seq2seq, got --arch encoder"},
      {{"train", "--arch", "seq2seq", "--task", data, "--token-sep", "\t"}, "--token-sep: cannot hold a tab"},
      {{"train", "--arch", "seq2seq", "--task", data, "--token-sep", std::string(17, '-')},
       "--token-sep: has 17 bytes, more than the limit of 16"},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto e = run_cli(c.args);
    CHECK(e.status == 2);
    CHECK(e.err.find(c.message) != std::string::npos);
  }
}
