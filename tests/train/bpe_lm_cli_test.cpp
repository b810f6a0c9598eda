// A language model on BPE tokens (train --task lm --tokenizer tok.json), and bits per byte,
// which compare it with a character model: train, eval and sample read the run's tokenizer
// through its stored hash (train/run_data.h).
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "data/bpe_file.h"
#include "train_test_util.h"

using tg::test::number_after;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

std::string corpus_text() {
  std::string text;
  const char* words[] = {"the cat", "a dog", "the bird", "one fish", "my friend"};
  const char* verbs[] = {" sees ", " likes ", " finds "};
  for (int i = 0; i < 400; ++i) text += std::string(words[i % 5]) + verbs[i % 3] + words[(i * 7 + 2) % 5] + ".\n";
  return text;
}

std::vector<std::string> tiny_lm(const std::string& data, const std::string& out) {
  return {"train", "--task", "lm", "--arch", "gpt", "--data", data, "--out", out, "--d-model", "32", "--heads", "2",
          "--layers", "1", "--ff", "64", "--block-size", "16", "--batch-size", "8", "--steps", "40",
          "--eval-every", "0", "--eval-batches", "4", "--threads", "1"};
}

}  // namespace

TEST_CASE("BPE lm: train, eval and sample a language model on a tokenizer's tokens") {
  TempDir dir("bpe_lm");
  const std::string corpus = (dir.path() / "corpus.txt").string(), tok = (dir.path() / "tok.json").string();
  std::ofstream(corpus, std::ios::binary) << corpus_text();
  REQUIRE(run_cli({"tokenizer", "train", corpus, "--vocab-size", "300", "--out", tok}).status == 0);

  std::vector<std::string> args = tiny_lm(corpus, (dir.path() / "bpe").string());
  args.insert(args.end(), {"--tokenizer", tok});
  const auto trained = run_cli(args);
  REQUIRE_MESSAGE(trained.status == 0, trained.err);
  CHECK(trained.out.find(", bits per byte ") != std::string::npos);  // the final validation line

  // eval: the loss per token, and the same in bits per byte of text: a token is several bytes.
  const auto eval = run_cli({"eval", (dir.path() / "bpe").string()});
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  const double loss = number_after(eval.out, "loss"), bpb = number_after(eval.out, "bits per byte");
  CHECK(bpb > 0);
  CHECK(bpb < loss / std::log(2.0) / 1.5);

  // eval's examples show the text a window's tokens spell, as the corpus has it (line breaks
  // escaped): more bytes than the window's 16 tokens, no token names.
  std::smatch input_row;
  REQUIRE(std::regex_search(eval.out, input_row, std::regex("\n  input   (.*)\n")));
  std::string corpus_lines = corpus_text();
  for (size_t at = 0; (at = corpus_lines.find('\n', at)) != std::string::npos; at += 2)
    corpus_lines.replace(at, 1, "\\n");
  CHECK(input_row[1].length() > 16);
  CHECK_MESSAGE(corpus_lines.find(input_row[1]) != std::string::npos, input_row[1]);

  // explore's recording describes its example by that same text.
  const std::filesystem::path recording = dir.path() / "recording.json";
  const auto explored = run_cli({"explore", (dir.path() / "bpe").string(), "--out", (dir.path() / "x.html").string(),
                                 "--json", recording.string()});
  REQUIRE_MESSAGE(explored.status == 0, explored.err);
  const std::string description = nlohmann::json::parse(tg::test::read_file(recording))["description"];
  CHECK_MESSAGE(description.find(", 16 tokens: \"" + input_row[1].str() + "\"; loss ") != std::string::npos,
                description);

  // sample writes text, not ids: the prompt, then bytes the tokens spell.
  const auto sample = run_cli({"sample", (dir.path() / "bpe").string(), "--prompt", "the cat", "--tokens", "20",
                               "--temperature", "0"});
  REQUIRE_MESSAGE(sample.status == 0, sample.err);
  CHECK(sample.out.rfind("the cat", 0) == 0);
  CHECK(sample.out.size() > std::string("the cat\n").size());

  // A tokenizer changed after training is not read: its tokens would not be the model's.
  std::ofstream(tok, std::ios::app) << " ";
  const auto refused = run_cli({"eval", (dir.path() / "bpe").string()});
  CHECK(refused.status != 0);
  CHECK(refused.err.find("give the tokenizer file with --tokenizer") != std::string::npos);
}

TEST_CASE("BPE lm: a character model's bits per byte are its loss in bits on one-byte characters") {
  TempDir dir("char_bpb");
  const std::string corpus = (dir.path() / "corpus.txt").string();
  std::ofstream(corpus, std::ios::binary) << corpus_text();
  REQUIRE(run_cli(tiny_lm(corpus, (dir.path() / "chars").string())).status == 0);
  const auto eval = run_cli({"eval", (dir.path() / "chars").string()});
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  CHECK(number_after(eval.out, "bits per byte") ==
        doctest::Approx(number_after(eval.out, "loss") / std::log(2.0)).epsilon(1e-3));
}

TEST_CASE("BPE lm: --tokenizer is read by task lm only") {
  const auto r = run_cli({"train", "--task", "copy", "--tokenizer", "tok.json", "--out", "unused"});
  CHECK(r.status != 0);
  CHECK(r.err.find("--tokenizer") != std::string::npos);
  CHECK(r.err.find("task copy does not read it") != std::string::npos);
}

TEST_CASE("BPE lm: --tokenizer bpe learns the run's tokenizer from the training text only") {
  TempDir dir("bpe_learned");
  // The text's last 480 bytes, inside its last tenth (the validation share), repeat a word the
  // training text lacks.
  std::string text = corpus_text();
  for (int i = 0; i < 60; ++i) text += "zyzzyva ";
  REQUIRE(text.size() / 10 > 480 + 100);
  const std::string corpus = (dir.path() / "corpus.txt").string(), run = (dir.path() / "run").string();
  std::ofstream(corpus, std::ios::binary) << text;
  std::vector<std::string> args = tiny_lm(corpus, run);
  args.insert(args.end(), {"--tokenizer", "bpe", "--vocab-size", "320"});
  const auto trained = run_cli(args);
  REQUIRE_MESSAGE(trained.status == 0, trained.err);

  const tg::data::BpeTokenizer tokenizer = tg::data::load_bpe_tokenizer(dir.path() / "run" / "tokenizer.json");
  CHECK(tokenizer.vocab_size() > 256);  // merges stop early when no pair occurs twice more
  CHECK(tokenizer.vocab_size() <= 320);
  for (tg::data::TokenId id = 0; id < tokenizer.vocab_size(); ++id)
    CHECK_MESSAGE(tokenizer.token_bytes(id).find("zyz") == std::string::npos, "token ", id);
  const auto eval = run_cli({"eval", run});
  REQUIRE_MESSAGE(eval.status == 0, eval.err);
  CHECK(eval.out.find("bits per byte") != std::string::npos);

  const auto refused = run_cli({"train", "--task", "lm", "--vocab-size", "300", "--out", (dir.path() / "x").string()});
  CHECK(refused.status != 0);
  CHECK(refused.err.find("--vocab-size: sizes the tokenizer that --tokenizer bpe learns") != std::string::npos);
}
