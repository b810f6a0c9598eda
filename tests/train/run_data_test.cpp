// A run's stored data paths are untrusted (issue 32, item 3): a run stores each data file's
// SHA-256 beside its path, and eval, explore, report and train --resume read a stored path only
// while the file there has that content; otherwise they ask for --data.
#include <filesystem>
#include <fstream>

#include "core/io/input_file.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/run_data.h"
#include "train_test_util.h"

using namespace tg;
using namespace tg::test;
namespace fs = std::filesystem;

namespace {

// A tiny language model trained on dir/corpus.txt, in dir/run.
fs::path trained_lm(const TempDir& dir) {
  std::string text;
  for (int i = 0; i < 5; ++i) text += "abcabcabc\nbcabca\n";
  test::write_file(dir.path() / "corpus.txt", text);
  const fs::path run = dir.path() / "run";
  REQUIRE(run_cli({"train", "--task", "lm", "--data", (dir.path() / "corpus.txt").string(), "--block-size", "4",
                   "--steps", "2", "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "16",
                   "--batch-size", "4", "--out", run.string()})
              .status == 0);
  return run;
}

// Rewrites the run's checkpoint (CRC-valid, as anyone can) with its config changed by `edit`.
template <class Edit>
void tamper(const fs::path& run, Edit&& edit) {
  train::Checkpoint c = train::load_checkpoint(run / "checkpoint.safetensors");
  edit(c.config);
  train::save_checkpoint(run / "checkpoint.safetensors", c);
}

}  // namespace

TEST_CASE("run data: sha256_hex is SHA-256") {
  TempDir dir("sha256");
  test::write_file(dir.path() / "abc", "abc");
  CHECK(train::sha256_hex(InputFile("test", dir.path() / "abc")) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  test::write_file(dir.path() / "empty", "");
  CHECK(train::sha256_hex(InputFile("test", dir.path() / "empty")) ==
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_CASE("run data: a checkpoint naming another file cannot make eval or explore read it") {
  TempDir dir("run_data_other");
  const fs::path run = trained_lm(dir);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").config.data_sha256.size() == 64);
  CHECK(run_cli({"eval", run.string()}).status == 0);
  // A "secret" written in the model's characters, which a tampered config points at.
  const fs::path secret = dir.path() / "secret.txt";
  test::write_file(secret, "cabbage\ncab\n" + std::string(40, 'a'));
  tamper(run, [&](train::TrainConfig& c) { c.data = secret.string(); });
  const std::string page = (dir.path() / "p.html").string();
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{"eval", run.string()}, {"explore", run.string(), "--out", page}}) {
    const CliResult r = run_cli(command);
    INFO(command[0], ": ", r.err);
    CHECK(r.status == 1);
    CHECK(test::has(r.err, secret.string() + " (the run's --data, stored as \"" + secret.string() +
                         "\"): the file's content is not the run's"));
    CHECK(test::has(r.err, "give the data file with --data"));
    CHECK_FALSE(test::has(r.out + r.err, "cabbage"));
  }
  // The user's own --data is theirs to vouch for.
  CHECK(run_cli({"eval", run.string(), "--data", (dir.path() / "corpus.txt").string()}).status == 0);
}

TEST_CASE("run data: a data file changed since training, or a run without hashes, asks for --data") {
  TempDir dir("run_data_changed");
  const fs::path run = trained_lm(dir);
  const fs::path corpus = dir.path() / "corpus.txt";
  test::write_file(corpus, "abcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabcb\n");
  CliResult r = run_cli({"eval", run.string()});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "the file's content is not the run's (SHA-256 "));
  r = run_cli({"train", "--resume", run.string(), "--steps", "+1"});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "the file's content is not the run's"));

  // A run from before the hashes were stored: its paths are not read, --data is.
  tamper(run, [](train::TrainConfig& c) { c.data_sha256.clear(); });
  r = run_cli({"eval", run.string()});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "the run stores no SHA-256 of the file's content"));
  r = run_cli({"report", run.string()});
  CHECK(test::has(r.err, "no attention maps"));
  CHECK(test::has(r.err, "the run stores no SHA-256"));
  test::write_file(corpus, "abcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\nabcabcabc\nbcabca\n");
  r = run_cli({"train", "--resume", run.string(), "--steps", "+1", "--data", corpus.string()});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").config.data_sha256.size() == 64);  // filled in
  CHECK(run_cli({"eval", run.string()}).status == 0);
}
