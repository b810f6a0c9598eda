// The tapegrad program and the processes around it (issue 32): a run directory is one process's
// at a time (train/run_lock.h), OpenMP's thread count from the environment is bounded like
// --threads, and a path that is not UTF-8 is refused before anything runs. The refusals are rows
// of the bad-input matrix (bad_input/process_cases.cpp); these are the cases that must work.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "test_util.h"
#include "train/checkpoint.h"
#include "train/run_lock.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

std::vector<std::string> tiny_run(const std::filesystem::path& out, int steps) {
  return {"train", "--task", "copy", "--steps", std::to_string(steps), "--warmup", "1", "--d-model", "16", "--heads",
          "2", "--layers", "1", "--ff", "16", "--batch-size", "8", "--val-examples", "16", "--eval-batches", "1",
          "--out", out.string()};
}

}  // namespace

TEST_CASE("run lock: a run holds its directory while it runs, and a lock file left by a dead process blocks nothing") {
  TempDir dir("run_lock");
  const std::filesystem::path run = dir.path() / "run", lock_file = run / train::kRunLockFile;
  REQUIRE(run_cli(tiny_run(run, 2)).status == 0);
  CHECK(test::read_file(lock_file) == std::to_string(getpid()) + "\n");  // the last holder's pid

  std::ofstream(lock_file) << "999999999\n";  // as a run killed with SIGKILL leaves it
  const auto resumed = run_cli({"train", "--resume", run.string(), "--steps", "3"});
  INFO(resumed.err);
  CHECK(resumed.status == 0);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").step == 3);

  {
    const train::RunLock held("test", run);  // another run, as far as flock is concerned
    const auto refused = run_cli({"train", "--resume", run.string(), "--steps", "4"});
    CHECK(refused.status == 1);
    CHECK(refused.err.find("is in use by process " + std::to_string(getpid())) != std::string::npos);
    CHECK(train::load_checkpoint(run / "checkpoint.safetensors").step == 3);
    // A report written elsewhere does not write into the run: the run may be read while it trains.
    CHECK(run_cli({"report", run.string(), "--out", (dir.path() / "report.html").string()}).status == 0);
  }
  CHECK(run_cli({"train", "--resume", run.string(), "--steps", "4"}).status == 0);
}

TEST_CASE("run lock: a symbolic link or a FIFO planted at the lock file is refused, and what it leads to untouched") {
  TempDir dir("run_lock_planted");
  const std::filesystem::path target = dir.path() / "precious.txt", run = dir.path() / "run";
  std::ofstream(target) << "precious\n";
  std::filesystem::create_directories(run);
  std::filesystem::create_symlink(target, run / train::kRunLockFile);
  const auto linked = run_cli(tiny_run(run, 2));
  CHECK(linked.status == 1);
  CHECK(linked.err.find("it is a symbolic link") != std::string::npos);
  CHECK(test::read_file(target) == "precious\n");
  CHECK_FALSE(std::filesystem::exists(run / "checkpoint.safetensors"));

  std::filesystem::remove(run / train::kRunLockFile);
  REQUIRE(::mkfifo((run / train::kRunLockFile).c_str(), 0600) == 0);
  const auto fifo = run_cli(tiny_run(run, 2));  // without blocking on the FIFO
  CHECK(fifo.status == 1);
  CHECK(fifo.err.find("is not a regular file") != std::string::npos);
}

TEST_CASE("OMP_NUM_THREADS: libgomp's forms within the --threads bound are accepted") {
  TempDir dir("omp_num_threads");
  for (const std::string value : {"1", " 2 ", "2,1", " 1 , 2 "}) {
    const test::ScopedEnv env("OMP_NUM_THREADS", value);
    const auto r = run_cli(tiny_run(dir.path() / "run", 2));
    INFO("OMP_NUM_THREADS=\"", value, "\": ", r.err);
    CHECK(r.status == 0);
    std::filesystem::remove_all(dir.path() / "run");
  }
}

TEST_CASE("paths: a UTF-8 run directory trains and resumes, one that is not UTF-8 is refused before anything is made") {
  TempDir dir("utf8_paths");
  const std::filesystem::path run = dir.path() / "r\xc3\xbcn \xe2\x9c\x93";  // "rün ✓"
  REQUIRE(run_cli(tiny_run(run, 2)).status == 0);
  const auto resumed = run_cli({"train", "--resume", run.string(), "--steps", "3"});
  INFO(resumed.err);
  CHECK(resumed.status == 0);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").config.out == run.string());

  const std::filesystem::path bad = dir.path() / "r\xff";
  const auto refused = run_cli(tiny_run(bad, 2));
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--out: the path \"" + dir.str() + "/r\\xff\" is not valid UTF-8") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(bad));
}
