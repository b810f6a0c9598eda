// The CLI of arch seq2seq: a short training run end to end (train, resume, eval greedy and with
// --beam, sample --prompt), a user file as --task, and bad input refused with exit 2 or 1.
#include <doctest/doctest.h>

#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "train/checkpoint.h"
#include "train_test_util.h"

using tg::test::run_cli;
using tg::test::TempDir;

namespace {

// A few steps of a tiny model: seconds, not accuracy.
std::vector<std::string> tiny_seq2seq_run(const std::string& task, const std::string& out, const std::string& steps = "20") {
  return {"train", "--arch", "seq2seq", "--task", task, "--steps", steps, "--d-model", "16", "--heads", "2",
          "--layers", "1", "--ff", "32", "--batch-size", "16", "--eval-every", "0", "--out", out};
}

}  // namespace

TEST_CASE("cli: train --arch seq2seq on addition, resume, eval greedy and with --beam, sample --prompt") {
  TempDir dir("seq2seq_cli");
  const std::string out = (dir.path() / "run").string();
  std::vector<std::string> args = tiny_seq2seq_run("addition", out);
  args.insert(args.end(), {"--val-examples", "24"});
  auto r = run_cli(args);
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("arch seq2seq (encoder-decoder)") != std::string::npos);
  CHECK(r.out.find("validation at step 20 (greedy decoding): exact match") != std::string::npos);
  const tg::train::Checkpoint c = tg::train::load_checkpoint(dir.path() / "run" / "checkpoint.safetensors");
  CHECK(c.config.arch == "seq2seq");
  CHECK(c.config.task == "addition");
  CHECK(c.model_config.arch == "seq2seq");
  CHECK(c.model_config.max_len == 7);
  CHECK(c.step == 20);

  r = run_cli({"train", "--resume", out, "--steps", "+5"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("(resumed at step 20)") != std::string::npos);
  CHECK(tg::train::load_checkpoint(dir.path() / "run" / "checkpoint.safetensors").step == 25);

  r = run_cli({"eval", out, "--show", "2"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("validation set, 24 pairs, greedy decoding: exact match") != std::string::npos);
  CHECK(r.out.find("first 2 pairs:") != std::string::npos);
  r = run_cli({"eval", out, "--beam", "3"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("beam search of width 3 (sum of log-probabilities)") != std::string::npos);

  const std::string pairs = (dir.path() / "test.tsv").string();
  std::ofstream(pairs) << "1+2\t3\n40+2\t42\n";
  r = run_cli({"eval", out, "--data", pairs});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find(pairs + ", 2 pairs") != std::string::npos);

  r = run_cli({"sample", out, "--prompt", "12+345"});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.size() <= 7);  // at most max_len - 1 = 6 digits and a newline
  CHECK(r.out.find_first_not_of("0123456789+") == r.out.size() - 1);
  CHECK(run_cli({"sample", out, "--prompt", "12+345", "--beam", "1"}).out == r.out);
}

TEST_CASE("cli: train --arch seq2seq --task FILE reads pairs of any lengths") {
  TempDir dir("seq2seq_file_cli");
  const std::string data = (dir.path() / "words.jsonl").string();
  std::ofstream file(data);
  for (int i = 0; i < 30; ++i)
    file << fmt::format("{{\"input\": \"{}\", \"output\": \"{}\"}}\n", i, std::string(i % 4 + 1, 'x'));
  file.close();
  const std::string out = (dir.path() / "run").string();
  auto r = run_cli(tiny_seq2seq_run(data, out, "4"));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  const tg::train::Checkpoint c = tg::train::load_checkpoint(dir.path() / "run" / "checkpoint.safetensors");
  CHECK(c.config.task == "file");
  CHECK(c.config.data == data);
  CHECK(c.model_config.max_len == 5);  // "xxxx" + <eos>
  r = run_cli({"eval", out});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("validation set, 3 pairs") != std::string::npos);
  const std::string unknown = (dir.path() / "unknown.tsv").string();
  std::ofstream(unknown) << "1\tx\n2\ty\n";
  r = run_cli({"eval", out, "--data", unknown});
  CHECK(r.status == 1);
  CHECK(r.err.find(unknown + ":2 output: the character \"y\" is not in the model's vocabulary") != std::string::npos);
}

TEST_CASE("cli: seq2seq bad input is refused naming the flag") {
  TempDir dir("seq2seq_cli_bad");
  const std::string out = (dir.path() / "run").string();
  REQUIRE(run_cli(tiny_seq2seq_run("addition", out, "2")).status == 0);
  const std::string encoder = (dir.path() / "encoder").string();
  REQUIRE(run_cli({"train", "--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16", "--heads", "2",
                   "--layers", "1", "--ff", "32", "--out", encoder}).status == 0);
  const std::string bad_pairs = (dir.path() / "bad.tsv").string();
  std::ofstream(bad_pairs) << "1+2\t3\n1+2\n";
  struct Case {
    std::vector<std::string> args;
    int status;
    const char* message;
  };
  const Case cases[] = {
      {{"train", "--arch", "seq2seq", "--task", "lm"}, 2,
       "--arch: seq2seq is an encoder-decoder: it needs --task addition"},
      {{"train", "--task", "addition"}, 2, "--task: addition maps an input to an output of another length: it needs "
                                           "--arch seq2seq"},
      {{"train", "--task", "pairs.tsv"}, 2, "--task: a file of pairs (pairs.tsv) is read by --arch seq2seq"},
      {{"train", "--arch", "seq2seq", "--task", "pairs.csv"}, 2, "pairs.csv is not a task"},
      {{"train", "--arch", "seq2seq", "--ignore-tokens", "0"}, 2, "--ignore-tokens: a seq2seq run scores whole"},
      {{"train", "--arch", "seq2seq", "--task", "addition", "--block-size", "9"}, 2, "--block-size: task addition does "
                                                                                     "not read it"},
      {{"train", "--arch", "seq2seq", "--task", bad_pairs, "--out", (dir.path() / "bad").string()}, 1,
       "bad.tsv:2: expected the input, one tab, the output"},
      {{"eval", out, "--beam", "0"}, 2, "--beam: must be an integer in [1, 64], got 0"},
      {{"explore", out, "--example", "0"}, 1, "explore steps through encoder and gpt models only"},
      {{"export", out, "--format", "pytorch", (dir.path() / "exported").string()}, 1, "the run's model is arch seq2seq"},
      {{"eval", encoder, "--beam", "2"}, 2, "--beam: "},
      {{"eval", out, "--predictions", "p.jsonl"}, 2, "--predictions: writes per-position predictions"},
      {{"sample", out}, 2, "--prompt: a seq2seq run translates an input"},
      {{"sample", out, "--prompt", "1+2", "--temperature", "1"}, 2, "--temperature: samples a language model"},
      {{"sample", out, "--prompt", "1-2"}, 1, "--prompt: the character \"-\" is not in the model's vocabulary"},
      {{"sample", out, "--prompt", "1234+5678"}, 2, "--prompt: has 9 characters; the model reads at most 7"},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto e = run_cli(c.args);
    CHECK(e.status == c.status);
    CHECK(e.err.find(c.message) != std::string::npos);
  }
}
