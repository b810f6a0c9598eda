// Issue 32: a symbolic link planted at a file a command writes, or at the temporary name the
// writers once used ("<file>.tmp"), never lets the command write outside its own directories.
// Each case plants links into an "outside" directory (a plain file, a valid copy of the run's
// checkpoint and metrics log, a directory, a name that does not exist yet), runs one command
// in-process on a fresh copy of one tiny trained run, and checks that "outside" holds exactly
// what it held (every name, byte and link target), that nothing appeared beside it, and that
// the command left no temporary file. Coverage: 15 writers (13 command lines of the 8 commands
// that write files: train fresh, --overwrite and --resume, report with --csv and with --out,
// eval --predictions, explore --out --json, trace --dot, experiment --svg, export into an
// earlier export, a directory holding other files and a link, import; and the library's
// Vocab::save and write_grammar_corpus) x 49 planted links; the test counts them.
#include <map>

#include "core/output_file_test_util.h"
#include "data/grammar_corpus.h"
#include "data/vocab.h"
#include "test_util.h"
#include "train_test_util.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTinyRun = {"--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16",
                                           "--heads", "2", "--layers", "1", "--ff", "16", "--batch-size", "8",
                                           "--val-examples", "16", "--eval-batches", "1"};
const char* const kRunFiles[] = {"checkpoint.safetensors", "metrics.jsonl", "metrics.csv", "report.html"};

// Every entry under `dir`: its kind and bytes (a file), target (a link) or nothing (a directory).
std::map<std::string, std::string> file_bytes_under(const fs::path& dir) {
  std::map<std::string, std::string> entries;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = fs::relative(entry.path(), dir).string();
    entries[name] = entry.is_symlink()          ? "link " + fs::read_symlink(entry.path()).string()
                    : entry.is_directory()      ? std::string("directory")
                                                : "file " + read_file(entry.path());
  }
  return entries;
}

class Planting {
 public:
  Planting() {
    fs::create_directories(outside_ / "dir");
    std::ofstream(outside_ / "victim.txt") << "not yours\n";
    std::ofstream(outside_ / "dir" / "inside.txt") << "not yours either\n";
    std::vector<std::string> train = {"train", "--out", run_.string()};
    train.insert(train.end(), kTinyRun.begin(), kTinyRun.end());
    REQUIRE(run_cli(train).status == 0);
    fs::copy_file(run_ / "checkpoint.safetensors", outside_ / "checkpoint.safetensors");
    fs::copy_file(run_ / "metrics.jsonl", outside_ / "metrics.jsonl");
    before_ = file_bytes_under(outside_);
  }

  // A fresh copy of the trained run.
  fs::path copy_of_run(const std::string& name) const {
    const fs::path dir = root_.path() / "work" / name;
    fs::copy(run_, dir, fs::copy_options::recursive);
    return dir;
  }
  fs::path work(const std::string& name) const { return root_.path() / "work" / name; }
  const fs::path& run() const { return run_; }

  // A link at `at` to `target` in "outside", in place of whatever was there.
  void plant(const fs::path& at, const std::string& target) {
    fs::create_directories(at.parent_path());
    fs::remove(at);
    fs::create_symlink(outside_ / target, at);
    ++planted_;
  }
  // Links at `dir`/<name> and `dir`/<name>.tmp for each of the run's files, each to a victim
  // of its kind (a valid checkpoint and log, so that a resumed run reads them).
  void plant_run_files(const fs::path& dir, bool at_the_files) {
    for (const char* name : kRunFiles) {
      const std::string victim = std::string(name) == "checkpoint.safetensors" || std::string(name) == "metrics.jsonl"
                                     ? name : "victim.txt";
      if (at_the_files) plant(dir / name, victim);
      plant(dir / (std::string(name) + ".tmp"), "victim.txt");
    }
  }

  // Runs a command and checks that nothing outside changed and no temporary file is left in `dir`.
  void check(const std::string& what, const std::function<int()>& command, int expected_status,
             const fs::path& dir) {
    INFO(what);
    CHECK(command() == expected_status);
    CHECK(file_bytes_under(outside_) == before_);
    CHECK(std::set<fs::path>(fs::directory_iterator(root_.path()), fs::directory_iterator()) ==
          std::set<fs::path>{outside_, root_.path() / "work"});
    CHECK(temporaries_in(dir).empty());
    ++writers_;
  }
  void check_cli(const std::vector<std::string>& args, int expected_status, const fs::path& dir) {
    std::string what = "tapegrad";
    for (const std::string& a : args) what += " " + a;
    check(what, [&] { return run_cli(args).status; }, expected_status, dir);
  }

  int planted() const { return planted_; }
  int writers() const { return writers_; }

 private:
  TempDir root_{"symlink_planting"};
  fs::path outside_ = root_.path() / "outside", run_ = root_.path() / "work" / "run";
  std::map<std::string, std::string> before_;
  int planted_ = 0, writers_ = 0;
};

std::vector<std::string> with_tiny_run(std::vector<std::string> args) {
  args.insert(args.end(), kTinyRun.begin(), kTinyRun.end());
  return args;
}

}  // namespace

TEST_CASE("symlink planting: no command writes through a link at an output or temporary path") {
  Planting p;

  const fs::path fresh = p.work("fresh");
  p.plant_run_files(fresh, false);  // links at the files would make it "a directory holding a run"
  p.check_cli(with_tiny_run({"train", "--out", fresh.string()}), 0, fresh);

  const fs::path overwritten = p.copy_of_run("overwritten");
  p.plant_run_files(overwritten, true);
  p.check_cli(with_tiny_run({"train", "--out", overwritten.string(), "--overwrite"}), 0, overwritten);

  const fs::path resumed = p.copy_of_run("resumed");
  p.plant_run_files(resumed, true);
  p.check_cli({"train", "--resume", resumed.string(), "--steps", "3"}, 0, resumed);
  CHECK(train::load_checkpoint(resumed / "checkpoint.safetensors").step == 3);

  const fs::path reported = p.copy_of_run("reported");
  for (const char* name : {"report.html", "report.html.tmp", "metrics.csv", "metrics.csv.tmp"})
    p.plant(reported / name, "victim.txt");
  p.check_cli({"report", reported.string(), "--csv"}, 0, reported);

  const fs::path outputs = p.work("outputs");
  for (const char* name : {"page.html", "page.html.tmp", "p.jsonl", "p.jsonl.tmp", "e.html", "e.html.tmp",
                           "e.json", "e.json.tmp", "t.dot", "t.dot.tmp", "plot.svg", "plot.svg.tmp"})
    p.plant(outputs / name, "victim.txt");
  p.check_cli({"report", p.run().string(), "--out", (outputs / "page.html").string()}, 0, outputs);
  p.check_cli({"eval", p.run().string(), "--predictions", (outputs / "p.jsonl").string()}, 0, outputs);
  p.check_cli({"explore", p.run().string(), "--out", (outputs / "e.html").string(), "--json",
               (outputs / "e.json").string()}, 0, outputs);
  p.check_cli({"trace", "--dot", (outputs / "t.dot").string()}, 0, outputs);
  p.check_cli({"experiment", "mask", "--svg", (outputs / "plot.svg").string()}, 0, outputs);

  // export replaces a whole earlier export: links inside it are removed, never followed; a
  // directory holding anything else, or a link in the directory's place, is refused.
  const fs::path exported = p.work("exported"), holding = p.work("holding"), linked = p.work("linked");
  for (const char* name : {"model.safetensors", "config.json", "tapegrad_model.py"}) {
    p.plant(exported / name, "victim.txt");
    p.plant(holding / (std::string(name) + ".tmp"), "victim.txt");
  }
  p.plant(linked, "dir");
  p.check_cli({"export", p.run().string(), "--format", "pytorch", exported.string()}, 0, p.work(""));
  p.check_cli({"export", p.run().string(), "--format", "pytorch", holding.string()}, 1, p.work(""));
  p.check_cli({"export", p.run().string(), "--format", "pytorch", linked.string()}, 1, p.work(""));

  const fs::path imported = p.work("imported");
  p.plant(imported / "checkpoint.safetensors", "not-yet");  // dangling: import's "holds a run" check passes
  p.plant(imported / "checkpoint.safetensors.tmp", "victim.txt");
  p.check_cli({"import", p.run().string(), (exported / "model.safetensors").string(), "--out", imported.string()}, 0,
              imported);

  const fs::path library = p.work("library");
  for (const char* name : {"vocab.txt", "vocab.txt.tmp", "corpus.txt", "corpus.txt.tmp"})
    p.plant(library / name, "victim.txt");
  p.check("Vocab::save", [&] { return data::Vocab({"a", "b"}).save((library / "vocab.txt").string()), 0; }, 0,
          library);
  p.check("write_grammar_corpus", [&] { return data::write_grammar_corpus((library / "corpus.txt").string(), 3), 0; },
          0, library);

  MESSAGE(p.writers(), " writers, ", p.planted(), " planted links");
  CHECK(p.writers() == 15);
  CHECK(p.planted() == 49);
}


TEST_CASE("output flags naming a run's record are refused, and the run stays byte for byte as it was") {
  TempDir dir("output_records");
  const fs::path run = dir.path() / "run", checkpoint = run / "checkpoint.safetensors", link = dir.path() / "link";
  REQUIRE(run_cli(with_tiny_run({"train", "--out", run.string()})).status == 0);
  fs::create_symlink(checkpoint, link);
  const auto before = file_bytes_under(run);
  const std::vector<std::vector<std::string>> refused = {
      {"report", run.string(), "--out", checkpoint.string()},
      {"report", run.string(), "--out", (run / "." / "metrics.jsonl").string()},
      {"eval", run.string(), "--predictions", link.string()},
      {"explore", run.string(), "--out", (run / "e.html").string(), "--json", (run / "metrics.csv").string()},
      {"explore", "--lesson", "attention_head", "--out", checkpoint.string()},
      {"trace", "--dot", (dir.path() / "run" / ".." / "run" / "checkpoint.safetensors").string()},
      {"experiment", "mask", "--svg", link.string()}};
  for (const std::vector<std::string>& args : refused) {
    const CliResult r = run_cli(args);
    INFO(args[0], " ", args.back(), ": ", r.err);
    CHECK(r.status == 1);
    CHECK(r.err.find("a record of the run, which no output replaces") != std::string::npos);
  }
  CHECK(file_bytes_under(run) == before);
  // A command's own output in the run directory stays writable.
  CHECK(run_cli({"report", run.string(), "--csv", "--out", (run / "report.html").string()}).status == 0);
}

}  // namespace tg::test
