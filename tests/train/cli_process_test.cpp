// The tapegrad program and the processes around it (issue 32): a run directory is one process's
// at a time (train/run_lock.h), a stop signal that comes before training begins stops the run
// there (apps/fit_console.h), OpenMP's thread count from the environment is bounded like
// --threads, and a path that is not UTF-8 is refused before anything runs. The refusals are rows
// of the bad-input matrix (bad_input/process_cases.cpp); these are the cases that must work.
// tests/crash/signal_resume.sh sends the signals to the program itself.
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/fit_console.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/run_lock.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::run_cli;
using tg::test::TempDir;


TEST_CASE("run lock: a run holds its directory while it runs, and a lock file left by a dead process blocks nothing") {
  TempDir dir("run_lock");
  const std::filesystem::path run = dir.path() / "run", lock_file = run / train::kRunLockFile;
  REQUIRE(run_cli(test::tiny_run(run, 2)).status == 0);
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

TEST_CASE("run lock: a directory named twice is locked once, and explore takes the lock when it writes into the run") {
  TempDir dir("run_lock_names");
  const std::filesystem::path run = dir.path() / "run", page = dir.path() / "page.html";
  REQUIRE(run_cli(test::tiny_run(run, 2)).status == 0);
  for (const std::filesystem::path& again : {run, dir.path() / "." / "run"}) {
    const auto twice = run_cli({"report", run.string(), again.string(), "--csv", "--out", page.string()});
    INFO(again.string(), ": ", twice.err);
    CHECK(twice.status == 0);
  }

  {
    const train::RunLock held("test", run);  // a run training there, as far as flock is concerned
    const std::string in_use = "is in use by process " + std::to_string(getpid());
    const auto page_in_run = run_cli({"explore", run.string()});
    CHECK(page_in_run.status == 1);
    CHECK(page_in_run.err.find(in_use) != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(run / "explore-0.html"));
    const auto json_in_run = run_cli({"explore", run.string(), "--out", page.string(), "--json",
                                      (run / "recording.json").string()});
    CHECK(json_in_run.status == 1);
    CHECK(json_in_run.err.find(in_use) != std::string::npos);
    const auto elsewhere = run_cli({"explore", run.string(), "--out", page.string()});
    INFO(elsewhere.err);
    CHECK(elsewhere.status == 0);
  }
  CHECK(run_cli({"explore", run.string()}).status == 0);
  CHECK(std::filesystem::exists(run / "explore-0.html"));
}

// The train command checks stopped_before_training once its run is set up;
// tests/crash/signal_resume.sh sends the program a signal during the setup.
TEST_CASE("stop signals: one that came before training began stops the run there, saying so, and nohup's SIGHUP stays "
          "ignored") {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  cli::Io io{};
  io.out = io.err = out;
  {
    const cli::StopSignalScope signals;
    CHECK_FALSE(cli::stopped_before_training(nullptr, "nothing written", io));
    REQUIRE(std::raise(SIGTERM) == 0);
    CHECK(cli::stopped_before_training(nullptr, "nothing written", io));
  }
  std::fclose(out);
  CHECK(io.status == 143);
  CHECK(std::string(text, size) == "tapegrad train: stopped by SIGTERM before training began; nothing written\n");
  std::free(text);

  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  REQUIRE(sigaction(SIGHUP, &ignore, &previous) == 0);  // as nohup starts a program
  {
    const cli::StopSignalScope signals;
    REQUIRE(std::raise(SIGHUP) == 0);
    CHECK_FALSE(cli::stop_on_signal(nullptr)());
  }
  struct sigaction after {};
  sigaction(SIGHUP, &previous, &after);
  const bool still_ignored = after.sa_handler == SIG_IGN;  // the scope left it as it found it
  CHECK(still_ignored);
}

TEST_CASE("run lock: a symbolic link or a FIFO planted at the lock file is refused, and what it leads to untouched") {
  TempDir dir("run_lock_planted");
  const std::filesystem::path target = dir.path() / "precious.txt", run = dir.path() / "run";
  std::ofstream(target) << "precious\n";
  std::filesystem::create_directories(run);
  std::filesystem::create_symlink(target, run / train::kRunLockFile);
  const auto linked = run_cli(test::tiny_run(run, 2));
  CHECK(linked.status == 1);
  CHECK(linked.err.find("it is a symbolic link") != std::string::npos);
  CHECK(test::read_file(target) == "precious\n");
  CHECK_FALSE(std::filesystem::exists(run / "checkpoint.safetensors"));

  std::filesystem::remove(run / train::kRunLockFile);
  REQUIRE(::mkfifo((run / train::kRunLockFile).c_str(), 0600) == 0);
  const auto fifo = run_cli(test::tiny_run(run, 2));  // without blocking on the FIFO
  CHECK(fifo.status == 1);
  CHECK(fifo.err.find("is not a regular file") != std::string::npos);
}

TEST_CASE("OMP_NUM_THREADS: libgomp's forms within the --threads bound are accepted") {
  TempDir dir("omp_num_threads");
  for (const std::string value : {"1", " 2 ", "2,1", " 1 , 2 "}) {
    const test::ScopedEnv env("OMP_NUM_THREADS", value);
    const auto r = run_cli(test::tiny_run(dir.path() / "run", 2));
    INFO("OMP_NUM_THREADS=\"", value, "\": ", r.err);
    CHECK(r.status == 0);
    std::filesystem::remove_all(dir.path() / "run");
  }
}

TEST_CASE("paths: a UTF-8 run directory trains and resumes, one that is not UTF-8 is refused before anything is made") {
  TempDir dir("utf8_paths");
  const std::filesystem::path run = dir.path() / "r\xc3\xbcn \xe2\x9c\x93";  // "rün ✓"
  REQUIRE(run_cli(test::tiny_run(run, 2)).status == 0);
  const auto resumed = run_cli({"train", "--resume", run.string(), "--steps", "3"});
  INFO(resumed.err);
  CHECK(resumed.status == 0);
  CHECK(train::load_checkpoint(run / "checkpoint.safetensors").config.out == run.string());

  const std::filesystem::path bad = dir.path() / "r\xff";
  const auto refused = run_cli(test::tiny_run(bad, 2));
  CHECK(refused.status == 2);
  CHECK(refused.err.find("--out: the path \"" + dir.str() + "/r\\xff\" is not valid UTF-8") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(bad));
}
