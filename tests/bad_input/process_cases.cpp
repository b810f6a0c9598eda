// Bad-input matrix rows: the process's environment (OMP_NUM_THREADS), run directories in use by
// another process (train/run_lock.h) and paths that are not UTF-8. See bad_input_case.h. The
// rows that need a run share one tiny run, made on first use and never changed by a row.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "bad_input/bad_input_case.h"
#include "train/run_lock.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> tiny_train(const std::string& out) {
  return {"train", "--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers",
          "1", "--ff", "16", "--batch-size", "8", "--val-examples", "16", "--eval-batches", "1", "--out", out};
}

struct SharedRun {
  TempDir dir{"bad_input_process"};
  std::string run = path("run");            // a finished tiny run
  std::string exported = path("exported");  // its model for PyTorch (tapegrad export)

  SharedRun() {
    for (const std::vector<std::string>& args :
         {tiny_train(run), std::vector<std::string>{"export", run, "--format", "pytorch", exported}})
      if (const std::string r = cli_outcome(args); r != "exit 0: ") throw std::runtime_error("making the run: " + r);
  }
  std::string path(const std::string& name) const { return (dir.path() / name).string(); }
};

const SharedRun& shared() {
  static const SharedRun run;
  return run;
}

BadInputCase row(std::string name, std::function<std::string()> run, std::vector<std::string> expected) {
  return {std::move(name), std::move(run), std::move(expected)};
}

BadInputCase cli_row(std::string name, std::vector<std::string> args, std::vector<std::string> expected) {
  return row(std::move(name), [args] { return cli_outcome(args); }, std::move(expected));
}

// A tiny run with OMP_NUM_THREADS set to `value`: refused before OpenMP starts a thread.
BadInputCase thread_count_row(const std::string& value) {
  return row("OMP_NUM_THREADS=\"" + value + "\"",
             [value] {
               const ScopedEnv env("OMP_NUM_THREADS", value);
               return cli_outcome(tiny_train(shared().path("threads")));
             },
             {"exit 1", "OMP_NUM_THREADS", "\"" + value + "\"", fmt::format("[1, {}]", cli::max_threads()),
              "per core"});
}

// `args` while this process holds `dir`'s lock, as a run in another process would.
BadInputCase in_use_row(std::string name, const std::string& dir, std::vector<std::string> args) {
  return row(std::move(name),
             [dir, args] {
               const train::RunLock held("test", dir);
               return cli_outcome(args);
             },
             {"exit 1", fmt::format("run directory {} is in use by process {} (lock file {}/{})", dir, getpid(), dir,
                                    train::kRunLockFile)});
}

// The working directory changed for a scope.
class ScopedWorkingDirectory {
 public:
  explicit ScopedWorkingDirectory(const fs::path& dir) : previous_(fs::current_path()) { fs::current_path(dir); }
  ~ScopedWorkingDirectory() { fs::current_path(previous_); }
  ScopedWorkingDirectory(const ScopedWorkingDirectory&) = delete;
  ScopedWorkingDirectory& operator=(const ScopedWorkingDirectory&) = delete;

 private:
  fs::path previous_;
};

}  // namespace

std::vector<BadInputCase> process_cases() {
  const SharedRun& s = shared();
  const std::string not_utf8 = s.path("r\xff"), shown = "r\\xff\"", what = "is not valid UTF-8";
  const std::string in_use_target = s.path("import_target");
  fs::create_directories(in_use_target);
  return {
      thread_count_row("100000"),
      thread_count_row("4,100000"),
      thread_count_row("0"),
      thread_count_row("four"),
      thread_count_row(""),
      thread_count_row("2,"),
      cli_row("train --out not UTF-8", tiny_train(not_utf8), {"exit 2", "--out", shown, what, "JSON"}),
      cli_row("train --data not UTF-8", {"train", "--task", "lm", "--data", not_utf8},
              {"exit 2", "--data", shown, what}),
      cli_row("train --val-data not UTF-8", {"train", "--task", "file", "--data", "x.tsv", "--val-data", not_utf8},
              {"exit 2", "--val-data", shown, what}),
      cli_row("train --task (a file of pairs) not UTF-8", {"train", "--arch", "seq2seq", "--task", not_utf8 + ".tsv"},
              {"exit 2", "--task", "r\\xff.tsv", what}),
      cli_row("train --resume not UTF-8", {"train", "--resume", not_utf8}, {"exit 2", "--resume", shown, what}),
      cli_row("report of a run not UTF-8", {"report", not_utf8}, {"exit 2", shown, what}),
      cli_row("import --out not UTF-8", {"import", s.run, s.exported + "/model.safetensors", "--out", not_utf8},
              {"exit 2", "--out", shown, what}),
      cli_row("explore of a run not UTF-8", {"explore", not_utf8}, {"exit 2", shown, what}),
      row("train --data relative to a working directory that is not UTF-8",
          [&s] {
            const fs::path cwd = s.path("cwd\xfe");
            fs::create_directories(cwd);
            std::ofstream(cwd / "corpus.txt") << "a small corpus of characters\n";
            const ScopedWorkingDirectory in(cwd);
            return cli_outcome({"train", "--task", "lm", "--data", "corpus.txt", "--out", s.path("lm")});
          },
          {"exit 2", "--data", "cwd\\xfe/corpus.txt", what, "working directory"}),
      in_use_row("train --overwrite into a run directory in use", s.run, [&s] {
        std::vector<std::string> args = tiny_train(s.run);
        args.push_back("--overwrite");
        return args;
      }()),
      in_use_row("train --resume of a run directory in use", s.run, {"train", "--resume", s.run, "--steps", "3"}),
      in_use_row("report into a run directory in use", s.run, {"report", s.run}),
      in_use_row("report --csv of a run directory in use", s.run, {"report", s.run, "--csv", "--out", s.path("r.html")}),
      in_use_row("import into a directory in use", in_use_target,
                 {"import", s.run, s.exported + "/model.safetensors", "--out", in_use_target}),
      row("train with a symbolic link planted at the lock file",
          [&s] {
            const fs::path dir = s.path("planted");
            fs::create_directories(dir);
            fs::create_symlink(s.path("elsewhere"), dir / train::kRunLockFile);
            return cli_outcome(tiny_train(dir.string()));
          },
          {"exit 1", "cannot open the lock file", train::kRunLockFile, "symbolic link"}),
  };
}

}  // namespace tg::test
