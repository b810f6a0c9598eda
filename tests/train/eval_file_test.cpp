// tapegrad eval on your own data (issue 17): a separate test file is scored whole with the
// checkpoint's vocabularies, unknown tokens and over-long lines are errors naming the line,
// the <bos> position and --ignore-tokens positions are not scored, --predictions writes every
// answer, and a run directory evaluates from anywhere and when copied.
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>

#include "core/output_file_test_util.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

namespace fs = std::filesystem;

// The "upper" task as JSONL: <bos>, then 2-6 letters of `letters` (every `blank_every`th one
// a "_" labelled "$"), each labelled with its upper case. Deterministic in `seed`.
struct UpperTask {
  std::string jsonl;
  int64_t letters = 0;  // positions labelled with a letter (not <bos>, not "$")
  int64_t blanks = 0;   // positions labelled "$"
  int first_line_with = 0;  // the first line holding `watch` (0: none)
};

UpperTask upper_task(const std::string& letters, int lines, uint32_t seed, int blank_every = 0, char watch = 0) {
  std::mt19937 gen(seed);
  UpperTask task;
  int position = 0;
  for (int line = 1; line <= lines; ++line) {
    std::vector<std::string> in = {"<bos>"}, out = {"<bos>"};
    const int n = 2 + static_cast<int>(gen() % 5);
    for (int i = 0; i < n; ++i) {
      const char c = letters[gen() % letters.size()];
      if (blank_every > 0 && ++position % blank_every == 0) {
        in.emplace_back("_"), out.emplace_back("$"), ++task.blanks;
        continue;
      }
      in.emplace_back(1, c), out.emplace_back(1, static_cast<char>(std::toupper(c))), ++task.letters;
      if (c == watch && task.first_line_with == 0) task.first_line_with = line;
    }
    task.jsonl += nlohmann::json{{"input", in}, {"output", out}}.dump() + "\n";
  }
  return task;
}

// A run small and (unless `more` gives other --steps) long enough to learn the upper task perfectly.
std::vector<std::string> upper_run(const fs::path& data, const fs::path& out, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"train", "--task", "file", "--data", data.string(), "--d-model", "32", "--heads",
                                   "2", "--layers", "1", "--ff", "64", "--batch-size", "16", "--lr", "1e-2",
                                   "--eval-every", "0", "--out", out.string()};
  if (std::find(more.begin(), more.end(), "--steps") == more.end()) more.insert(more.end(), {"--steps", "120"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// Runs in `dir` as the working directory, then returns to the one before.
class WorkingDirectory {
 public:
  explicit WorkingDirectory(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~WorkingDirectory() { fs::current_path(previous_); }
  WorkingDirectory(const WorkingDirectory&) = delete;
  WorkingDirectory& operator=(const WorkingDirectory&) = delete;

 private:
  fs::path previous_;
};

}  // namespace

TEST_CASE("eval --data scores every line of a separate file with the checkpoint's vocabularies") {
  TempDir dir("eval_data");
  const fs::path train = dir.path() / "upper.train.jsonl", run = dir.path() / "run";
  const UpperTask training = upper_task("abcde", 300, 1);
  test::write_file(train, training.jsonl);
  const auto t = run_cli(upper_run(train, run));
  INFO(t.err);
  REQUIRE(t.status == 0);

  // The model is right on every position of its training file ...
  auto r = run_cli({"eval", run.string(), "--data", train.string(), "--show", "0"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, fmt::format("{} (every line), 300 sequences ({} tokens scored): ", train.string(), training.letters)));
  CHECK(test::has(r.out, "token accuracy 1.0000, exact match 1.0000"));

  {  // ... and on a separate file of the same task: every line, the <bos> positions not scored
    const UpperTask test = upper_task("abcde", 37, 2);
    test::write_file(dir.path() / "upper.test.jsonl", test.jsonl);
    r = run_cli({"eval", run.string(), "--data", (dir.path() / "upper.test.jsonl").string(), "--show", "1"});
    REQUIRE(r.status == 0);
    CHECK(test::has(r.out, fmt::format("upper.test.jsonl (every line), 37 sequences ({} tokens scored): ", test.letters)));
    CHECK(test::has(r.out, "token accuracy 1.0000, exact match 1.0000"));
  }
  {  // a file whose labels are a subset of training's evaluates
    test::write_file(dir.path() / "abc.jsonl", upper_task("abc", 20, 3).jsonl);
    r = run_cli({"eval", run.string(), "--data", (dir.path() / "abc.jsonl").string()});
    INFO(r.err);
    REQUIRE(r.status == 0);
    CHECK(test::has(r.out, "20 sequences"));
    CHECK(test::has(r.out, "token accuracy 1.0000, exact match 1.0000"));
  }
  {  // a file with another token set of the same size is refused, naming the line and the token
    const UpperTask shifted = upper_task("bcdef", 20, 4, 0, 'f');  // read with training's ids: every letter one before
    REQUIRE(shifted.first_line_with > 0);
    const std::string file = (dir.path() / "bcdef.jsonl").string();
    test::write_file(file, shifted.jsonl);
    r = run_cli({"eval", run.string(), "--data", file});
    CHECK(r.status == 1);
    CHECK(test::has(r.err, fmt::format("{}:{}: input token \"f\"", file, shifted.first_line_with)));
    CHECK(test::has(r.err, "is not in the model's input vocabulary (the 5 tokens of its training data)"));
  }
  {  // a line longer than the model's maximum is refused, naming it
    const std::string file = (dir.path() / "long.jsonl").string();
    test::write_file(file, "{\"input\": [\"a\"], \"output\": [\"A\"]}\n{\"input\": [\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\",\"a\"], "
                "\"output\": [\"A\",\"A\",\"A\",\"A\",\"A\",\"A\",\"A\",\"A\"]}\n");
    r = run_cli({"eval", run.string(), "--data", file});
    CHECK(r.status == 1);
    CHECK(test::has(r.err, file + ":2: 8 tokens, more than the model's maximum of 7 (its longest training example)"));
  }
}

TEST_CASE("eval: --ignore-tokens leaves its positions out of the accuracies, --predictions writes every answer") {
  TempDir dir("eval_ignore");
  const fs::path train = dir.path() / "blanks.jsonl", test = dir.path() / "blanks.test.jsonl", run = dir.path() / "run";
  const UpperTask training = upper_task("abcd", 200, 5, 3), testing = upper_task("abcd", 25, 6, 4);
  test::write_file(train, training.jsonl);
  test::write_file(test, testing.jsonl);
  const auto t = run_cli(upper_run(train, run, {"--steps", "40"}));
  INFO(t.err);
  REQUIRE(t.status == 0);

  // Without it every labelled position but <bos> counts; with it the "$" ones do not.
  auto r = run_cli({"eval", run.string(), "--data", test.string()});
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, fmt::format("25 sequences ({} tokens scored)", testing.letters + testing.blanks)));
  r = run_cli({"eval", run.string(), "--data", test.string(), "--ignore-tokens", "$"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, fmt::format("25 sequences ({} tokens scored)", testing.letters)));
  r = run_cli({"eval", run.string(), "--data", test.string(), "--ignore-tokens", "$,Z"});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "ignore_tokens: \"Z\" is not an output token of the model (its 5 output tokens: $ A B C D)"));

  // Given to train, it is the run's: in the checkpoint's config, and eval's default.
  const fs::path ignoring = dir.path() / "ignoring";
  REQUIRE(run_cli(upper_run(train, ignoring, {"--steps", "2", "--warmup", "1", "--ignore-tokens", "$"})).status == 0);
  CHECK(train::load_checkpoint(ignoring / "checkpoint.safetensors").config.ignore_tokens ==
        std::vector<std::string>{"$"});
  r = run_cli({"eval", ignoring.string(), "--data", test.string()});
  CHECK(test::has(r.out, fmt::format("25 sequences ({} tokens scored)", testing.letters)));

  // Predictions: one line per example, in order, the file's line numbers, null where nothing is asked.
  const fs::path predictions = dir.path() / "predictions.jsonl";
  test::write_file(predictions, "an earlier file\n");
  r = run_cli({"eval", run.string(), "--data", test.string(), "--predictions", predictions.string()});
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, "predictions: " + predictions.string()));
  CHECK(test::temporaries_in(dir.path()).empty());
  std::istringstream lines(test::read_file(predictions)), inputs(testing.jsonl);
  int n = 0;
  for (std::string line, given; std::getline(lines, line) && std::getline(inputs, given);) {
    ++n;
    const auto j = nlohmann::json::parse(line), g = nlohmann::json::parse(given);
    CAPTURE(line);
    CHECK(j["line"] == n);
    CHECK(j["input"] == g["input"]);
    CHECK(j["target"][0].is_null());  // <bos>
    CHECK(j["predicted"][0].is_null());
    for (size_t i = 1; i < g["output"].size(); ++i) CHECK(j["target"][i] == g["output"][i]);
    CHECK(j["predicted"].size() == g["output"].size());
    CHECK(j["correct"].is_boolean());
  }
  CHECK(n == 25);

  const fs::path nowhere = dir.path() / "no" / "such" / "p.jsonl";
  r = run_cli({"eval", run.string(), "--predictions", nowhere.string()});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "cannot write " + nowhere.string() + ": cannot open its directory: No such file or directory"));
}

TEST_CASE("eval: a run directory evaluates from another working directory and when copied") {
  TempDir dir("eval_self_contained");
  const fs::path data_dir = dir.path() / "data", elsewhere = dir.path() / "elsewhere";
  fs::create_directories(data_dir);
  fs::create_directories(elsewhere);
  test::write_file(data_dir / "upper.jsonl", upper_task("abcd", 60, 7).jsonl);
  {
    // Paths given relative to the working directory, as a user types them.
    WorkingDirectory cwd(dir.path());
    REQUIRE(run_cli(upper_run("data/upper.jsonl", "a", {"--steps", "2", "--warmup", "1"})).status == 0);
    fs::create_directories("b");
    fs::copy("data/upper.jsonl", "b/upper.jsonl");  // a run whose data lives inside its directory
    REQUIRE(run_cli(upper_run("b/upper.jsonl", "b", {"--steps", "2", "--warmup", "1"})).status == 0);
  }
  CHECK(train::load_checkpoint(dir.path() / "a" / "checkpoint.safetensors").config.data ==
        (data_dir / "upper.jsonl").string());
  CHECK(train::load_checkpoint(dir.path() / "b" / "checkpoint.safetensors").config.data == "upper.jsonl");

  WorkingDirectory cwd(elsewhere);
  auto r = run_cli({"eval", "../a"});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(test::has(r.out, "validation set, 6 sequences"));
  fs::copy(dir.path() / "a", dir.path() / "a copy", fs::copy_options::recursive);
  fs::copy(dir.path() / "b", dir.path() / "b copy", fs::copy_options::recursive);
  fs::remove_all(dir.path() / "b");
  for (const char* copy : {"../a copy", "../b copy"}) {
    CAPTURE(copy);
    r = run_cli({"eval", copy});
    CHECK(r.status == 0);
    CHECK(test::has(r.out, "validation set, 6 sequences"));
  }
  // The training data gone: the error names the path looked for.
  fs::remove(dir.path() / "b copy" / "upper.jsonl");
  r = run_cli({"eval", "../b copy"});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "../b copy/upper.jsonl: cannot open"));
}

TEST_CASE("train --val-data scores a separate file whole, --val-fraction sets the share held out") {
  TempDir dir("eval_val_data");
  const fs::path train = dir.path() / "t.jsonl", val = dir.path() / "v.jsonl", run = dir.path() / "run";
  test::write_file(train, upper_task("abcd", 40, 8).jsonl);
  test::write_file(val, upper_task("abc", 13, 9).jsonl);
  auto r = run_cli(upper_run(train, run, {"--steps", "2", "--warmup", "1", "--val-data", val.string()}));
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, "(13 sequences)"));
  r = run_cli({"eval", run.string(), "--show", "0"});
  CHECK(test::has(r.out, fmt::format("validation set {} (every line), 13 sequences", val.string())));

  r = run_cli(upper_run(train, dir.path() / "half", {"--steps", "2", "--warmup", "1", "--val-fraction", "0.5"}));
  CHECK(r.status == 0);
  CHECK(test::has(r.out, "(20 sequences)"));

  test::write_file(val, upper_task("abcde", 30, 10, 0, 'e').jsonl);
  r = run_cli(upper_run(train, dir.path() / "unknown", {"--steps", "2", "--val-data", val.string()}));
  CHECK(r.status == 1);
  CHECK(test::has(r.err, val.string() + ":"));
  CHECK(test::has(r.err, "input token \"e\""));

  for (const std::vector<std::string>& more :
       {std::vector<std::string>{"--val-fraction", "1"}, {"--val-fraction", "0"}, {"--val-fraction", "nan"}}) {
    r = run_cli(upper_run(train, dir.path() / "bad", more));
    CHECK(r.status == 2);
    CHECK(test::has(r.err, "--val-fraction: must be a finite number in (0, 1), got " + more[1]));
  }
  r = run_cli(upper_run(train, dir.path() / "bad", {"--val-data", val.string(), "--val-fraction", "0.2"}));
  CHECK(r.status == 2);
  CHECK(test::has(r.err, "--val-fraction: the validation set is the --val-data file"));
  r = run_cli({"train", "--task", "sort", "--val-data", val.string()});
  CHECK(r.status == 2);
  CHECK(test::has(r.err, "--val-data: task sort does not read it (tasks that do: file)"));
  r = run_cli({"train", "--task", "file", "--data", train.string(), "--val-examples", "8"});
  CHECK(r.status == 2);
  CHECK(test::has(r.err, "--val-examples: task file does not read it"));
}

TEST_CASE("eval --data on a language model reads every window of a text with the model's characters") {
  TempDir dir("eval_lm_data");
  const fs::path corpus = dir.path() / "corpus.txt", run = dir.path() / "run";
  std::string text;
  for (int i = 0; i < 5; ++i) text += "abcabcabc\nbcabca\n";  // 85 characters: 9 held out, 2 windows
  test::write_file(corpus, text);
  REQUIRE(run_cli({"train", "--task", "lm", "--data", corpus.string(), "--block-size", "4", "--steps", "2",
                   "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "16", "--batch-size",
                   "4", "--out", run.string()})
              .status == 0);
  test::write_file(dir.path() / "known.txt", "cabcabcab\n");  // 10 characters: windows of 4 at 0 and 4
  auto r = run_cli({"eval", run.string(), "--data", (dir.path() / "known.txt").string()});
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(test::has(r.out, "known.txt (every window), 2 sequences (8 tokens scored)"));
  test::write_file(dir.path() / "unknown.txt", "abc\nabd\n");
  r = run_cli({"eval", run.string(), "--data", (dir.path() / "unknown.txt").string()});
  CHECK(r.status == 1);
  CHECK(test::has(r.err, "unknown.txt:2: the character \"d\" is not in the model's vocabulary"));
}

TEST_CASE("train --steps +N resumes for N more steps, and a resume with nothing to do says why") {
  TempDir dir("steps_more");
  const fs::path train = dir.path() / "t.jsonl", run = dir.path() / "run";
  test::write_file(train, upper_task("ab", 20, 11).jsonl);
  REQUIRE(run_cli(upper_run(train, run, {"--steps", "2", "--warmup", "1"})).status == 0);
  auto r = run_cli({"train", "--resume", run.string(), "--steps", "+3"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, "(resumed at step 2)"));
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").step == 5);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").config.steps == 5);

  r = run_cli({"train", "--resume", run.string()});
  CHECK(r.status == 0);
  CHECK(test::has(r.out, "is already at step 5 of its 5 steps; nothing to do (give --steps +N for N more steps, or a larger "
                   "total)"));
  r = run_cli({"train", "--resume", run.string(), "--steps", "4"});
  CHECK(r.status == 2);
  CHECK(test::has(r.err, "--steps: " + (run / "checkpoint.safetensors").string() +
                       " has done 5 steps already, more than 4: give a larger total, or +N for N more steps"));
  r = run_cli({"train", "--resume", run.string(), "--steps", "6"});  // an explicit total
  CHECK(r.status == 0);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").step == 6);

  r = run_cli({"train", "--steps", "+3"});
  CHECK(r.status == 2);
  CHECK(test::has(r.err, "--steps: +3 counts steps beyond a checkpoint's: it needs --resume"));
  for (const char* bad : {"+0", "+x", "++3", "+-3"}) {
    CAPTURE(bad);
    r = run_cli({"train", "--resume", run.string(), "--steps", bad});
    CHECK(r.status == 2);
    CHECK(test::has(r.err, fmt::format("--steps: +N must have N an integer in [1, 1099511627776], got {}", bad)));
  }
}
