// A sequence-to-sequence pair file on BPE tokens: `--tokenizer bpe` learns the run's tokenizer
// from both sides of the training pairs only, and eval and sample encode and decode through it
// (train/run_tokenizer.h, data/seq2seq_tokenizer.h).
#include <doctest/doctest.h>

#include <fstream>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/bpe_file.h"
#include "data/seq2seq_tasks.h"
#include "train/checkpoint.h"
#include "train_test_util.h"

using tg::test::number_after;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

// number words -> the number's digits reversed, as text: "four hundred two<TAB>204".
void write_number_pairs(const std::string& path) {
  std::ofstream file(path);
  for (int n = 0; n < 1000; n += 2) {
    const std::string digits = std::to_string(n);
    file << tg::data::number_to_words(n) << '\t' << std::string(digits.rbegin(), digits.rend()) << '\n';
  }
}

}  // namespace

TEST_CASE("cli: a pair file trains on a tokenizer learned from its training pairs, eval and sample decode text") {
  TempDir dir("seq2seq_bpe_cli");
  const std::string data = (dir.path() / "numbers.tsv").string(), out = (dir.path() / "run").string();
  write_number_pairs(data);
  auto r = run_cli({"train", "--arch", "seq2seq", "--task", data, "--tokenizer", "bpe", "--vocab-size", "300",
                    "--steps", "300", "--d-model", "32", "--heads", "2", "--layers", "1", "--ff", "64",
                    "--batch-size", "32", "--lr", "1e-2", "--eval-every", "0", "--threads", "1", "--out", out});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const tg::train::Checkpoint c = tg::train::load_checkpoint(dir.path() / "run" / "checkpoint.safetensors");
  CHECK(c.config.tokenizer == "tokenizer.json");
  CHECK(c.config.token_sep.empty());
  const tg::data::BpeTokenizer tokenizer = tg::data::load_bpe_tokenizer(dir.path() / "run" / "tokenizer.json");
  CHECK(tokenizer.vocab_size() > 256);
  CHECK(c.input_vocab.size() == tg::data::kNumReserved + tokenizer.vocab_size());
  CHECK(c.model_config.max_len < 25);  // "seven hundred seventy eight" in merged tokens, not 27 bytes

  r = run_cli({"eval", out, "--beam", "3", "--show", "4"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  // Chance is far below: the output is one of 500 numbers.
  CHECK(number_after(r.out, "exact match") > 0.3);
  const std::regex text_pair(R"(  input   [a-z]+( [a-z]+)*\n  target  \d+\n  model   .*   (right|WRONG)\n)");
  CHECK(std::distance(std::sregex_iterator(r.out.begin(), r.out.end(), text_pair), std::sregex_iterator()) == 4);

  // Any text encodes (bytes are tokens): a word the pairs never had is no error.
  r = run_cli({"sample", out, "--prompt", "three hundred zeventy", "--beam", "2"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.back() == '\n');
}

TEST_CASE("cli: a tokenizer is refused where it cannot tokenize, naming the flag") {
  TempDir dir("seq2seq_bpe_refused");
  const std::string tsv = (dir.path() / "pairs.tsv").string(), jsonl = (dir.path() / "pairs.jsonl").string();
  std::ofstream(tsv) << "one two\tthree\nfour\tfive\n";
  std::ofstream(jsonl) << "{\"input\": [\"one\"], \"output\": [\"two\"]}\n{\"input\": [\"a\"], \"output\": [\"b\"]}\n";
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{"train", "--task", "file", "--data", tsv, "--tokenizer", "bpe"},
       "--tokenizer: tokenizes a text or the pair files of --arch seq2seq, got --arch encoder"},
      {{"train", "--arch", "seq2seq", "--task", tsv, "--tokenizer", "bpe", "--token-sep", " "},
       "--token-sep: splits text into words; the run's tokens are those of --tokenizer bpe"},
      {{"train", "--arch", "seq2seq", "--task", jsonl, "--tokenizer", "bpe", "--out", (dir.path() / "r").string()},
       "pairs.jsonl gives token lists; a tokenizer (bpe) encodes text: give each side as a string"},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto e = run_cli(c.args);
    CHECK(e.status != 0);
    CHECK_MESSAGE(e.err.find(c.message) != std::string::npos, e.err);
  }
}
