// The tapegrad program against bad input (issue 14): a run writes only inside the directory
// named on its command line, every flag's range is checked as it is parsed, an existing run is
// not overwritten by accident, output that cannot be written is an error, and running out of
// memory names what asked for it.
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <thread>

#include "core/sanitizers.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/run_lock.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

constexpr bool kAddressSanitizer = TG_ADDRESS_SANITIZER;  // it aborts on a failed allocation instead of throwing

// Every file under `dir` with its bytes and modification time, but the lock file (train/run_lock.h),
// which every command that may write into a run rewrites with its pid.
std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>> snapshot(
    const std::filesystem::path& dir) {
  std::map<std::string, std::pair<std::string, std::filesystem::file_time_type>> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename() != train::kRunLockFile)
      files[entry.path().string()] = {test::read_file(entry.path()), entry.last_write_time()};
  return files;
}

// cli::parse_only's status for `tapegrad args...`, its messages discarded.
int parse_status(std::vector<std::string> args) {
  args.insert(args.begin(), "tapegrad");
  std::FILE* null = std::fopen("/dev/null", "w");
  const int status = cli::parse_only(args, null, null);
  std::fclose(null);
  return status;
}

int64_t train_records(const std::filesystem::path& metrics) {
  const std::string text = test::read_file(metrics);
  int64_t n = 0;
  for (size_t at = text.find("\"type\":\"train\""); at != std::string::npos; at = text.find("\"type\":\"train\"", at + 1))
    ++n;
  return n;
}

}  // namespace

TEST_CASE("cli: --resume DIR writes into DIR, never into the directory the checkpoint recorded") {
  TempDir dir("cli_resume_dir");
  const std::filesystem::path a = dir.path() / "a", b = dir.path() / "b";
  REQUIRE(run_cli(test::tiny_run(a, 2)).status == 0);
  std::filesystem::copy(a, b, std::filesystem::copy_options::recursive);
  const auto before = snapshot(a);

  const auto r = run_cli({"train", "--resume", b.string(), "--steps", "4"});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("run directory " + b.string() + " (resumed at step 2)") != std::string::npos);
  CHECK(snapshot(a) == before);  // bytes and modification times
  CHECK(train::load_checkpoint(b / "checkpoint.safetensors").step == 4);
  CHECK(train_records(b / "metrics.jsonl") == 4);

  SUBCASE("a checkpoint file: its directory is the run's") {
    const auto f = run_cli({"train", "--resume", (b / "checkpoint.safetensors").string(), "--steps", "5"});
    CHECK(f.status == 0);
    CHECK(train::load_checkpoint(b / "checkpoint.safetensors").step == 5);
    CHECK(snapshot(a) == before);
  }
  SUBCASE("a checkpoint recording another directory creates nothing there") {
    const std::filesystem::path elsewhere = dir.path() / "elsewhere";
    train::Checkpoint c = train::load_checkpoint(b / "checkpoint.safetensors");
    c.config.out = elsewhere.string();
    train::save_checkpoint(b / "checkpoint.safetensors", c);
    CHECK(run_cli({"train", "--resume", b.string(), "--steps", "6"}).status == 0);
    CHECK_FALSE(std::filesystem::exists(elsewhere));
    CHECK(train::load_checkpoint(b / "checkpoint.safetensors").step == 6);
  }
  SUBCASE("--out with --resume is refused") {
    const auto o = run_cli({"train", "--resume", b.string(), "--out", a.string(), "--steps", "6"});
    CHECK(o.status == 2);
    CHECK(o.err.find("--out: a resumed run writes into the directory --resume names") != std::string::npos);
    CHECK(snapshot(a) == before);
  }
}

TEST_CASE("cli: a resumed run that is already done says so") {
  TempDir dir("cli_resume_done");
  REQUIRE(run_cli(test::tiny_run(dir.path(), 2)).status == 0);
  const auto before = snapshot(dir.path());
  const auto r = run_cli({"train", "--resume", dir.str()});
  CHECK(r.status == 0);
  CHECK(r.out.find("is already at step 2 of its 2 steps; nothing to do (give --steps +N for N more steps, or a "
                   "larger total)") != std::string::npos);
  CHECK(snapshot(dir.path()) == before);
}

TEST_CASE("cli: a fresh run into a directory holding a run needs --overwrite") {
  TempDir dir("cli_overwrite");
  REQUIRE(run_cli(test::tiny_run(dir.path(), 3)).status == 0);
  const auto before = snapshot(dir.path());
  const auto r = run_cli(test::tiny_run(dir.path(), 2));
  CHECK(r.status == 2);
  CHECK(r.err.find(fmt::format("--out: {} already holds a run (checkpoint.safetensors); continue it with --resume "
                               "{} or start it afresh with --overwrite", dir.str(), dir.str())) != std::string::npos);
  CHECK(snapshot(dir.path()) == before);

  std::filesystem::remove(dir.path() / "checkpoint.safetensors");  // metrics alone are a run too
  CHECK(run_cli(test::tiny_run(dir.path(), 2)).err.find("already holds a run (metrics.jsonl)") != std::string::npos);

  auto args = test::tiny_run(dir.path(), 2);
  args.push_back("--overwrite");
  REQUIRE(run_cli(args).status == 0);
  CHECK(train::load_checkpoint(dir.path() / "checkpoint.safetensors").step == 2);
  CHECK(train_records(dir.path() / "metrics.jsonl") == 2);
  args.insert(args.end(), {"--resume", dir.str()});
  CHECK(run_cli(args).err.find("--overwrite: starts a run afresh; it cannot be combined with --resume") !=
        std::string::npos);
}

TEST_CASE("cli: every numeric flag is range-checked as it is parsed, nothing clamped, NaN and infinity refused") {
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{"train", "--steps", "99999999999999999999"},
       "--steps: must be an integer in [1, 1099511627776], got 99999999999999999999"},
      {{"train", "--steps", "0"}, "--steps: must be an integer in [1, 1099511627776], got 0"},
      {{"train", "--steps", "1e3"}, "--steps: must be an integer"},
      {{"train", "--steps", "1099511627776", "--batch-size", "1048576", "--grad-accum", "1048576"},
       "--steps * --batch-size * --grad-accum must be <= 1099511627776, got 1099511627776 * 1048576 * 1048576"},
      {{"train", "--seed", "-1"}, "--seed: must be an integer in [0, 18446744073709551615], got -1"},
      {{"train", "--lr", "inf"}, "--lr: must be a finite number > 0, got inf"},
      {{"train", "--lr", "nan"}, "--lr: must be a finite number > 0, got nan"},
      {{"train", "--dropout", "nan"}, "--dropout: must be a finite number in [0, 0.99], got nan"},
      {{"train", "--clip", "-inf"}, "--clip: must be a finite number >= 0, got -inf"},
      {{"train", "--d-model", "100000"}, "--d-model: must be an integer in [1, 16384], got 100000"},
      {{"train", "--layers", "2000"}, "--layers: must be an integer in [1, 1024], got 2000"},
      {{"train", "--threads", "100000"}, "--threads: must be an integer in [0, "},
      {{"eval", "run", "--threads", "-1"}, "--threads: must be an integer in [0, "},
      {{"eval", "run", "--batches", "1.5"}, "--batches: must be an integer in [0, 1099511627776], got 1.5"},
      {{"sample", "run", "--temperature", "inf"}, "--temperature: must be a finite number >= 0, got inf"},
      {{"sample", "run", "--tokens", "99999999"}, "--tokens: must be an integer in [0, 1048576], got 99999999"},
      {{"sample", "run", "--seed", "-3"}, "--seed: must be an integer in [0, 18446744073709551615], got -3"},
      {{"trace", "--seed", "x"}, "--seed: must be an integer"},
      {{"train", "--device", "tpu"}, "--device: must be cpu, cuda or cuda:N, got tpu"},
      {{"train", "--steps", "20", "--warmup", "30"}, "--warmup: must be < --steps (20), got 30"},
      {{"train", "--data", "x.txt"}, "--data: task reverse does not read it (tasks that do: lm, file)"},
      {{"train", "--task", "lm", "--val-examples", "8"}, "--val-examples: task lm does not read it"},
      {{"train", "--task", "file", "--data", "d.tsv", "--max-len", "8"}, "--max-len: task file does not read it"},
      {{"train", "--task", "copy", "--modulus", "7"}, "--modulus: task copy does not read it (tasks that do: mod_add)"},
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto r = run_cli(c.args);
    CHECK(r.status == 2);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(parse_status(c.args) == 2);
  }
  const auto threads = run_cli({"train", "--threads", "100000"});
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  CHECK(threads.err.find(fmt::format("[0, {}] (4 per core, {} cores), got 100000", 4 * cores, cores)) !=
        std::string::npos);
}

TEST_CASE("cli: the default warmup fits a short run, and an explicit one must be shorter than the run") {
  TempDir dir("cli_warmup");
  auto args = test::tiny_run(dir.path(), 20);
  args.erase(args.begin() + 5, args.begin() + 7);  // no --warmup: min(50, 20 / 10) = 2
  const auto r = run_cli(args);
  INFO(r.err);
  CHECK(r.status == 0);
  CHECK(r.out.find("(warmup 2, cosine)") != std::string::npos);
}

TEST_CASE("cli: output that cannot be written makes the exit status 1") {
  std::FILE* full = std::fopen("/dev/full", "w");
  REQUIRE(full != nullptr);
  char* err_buf = nullptr;
  size_t err_len = 0;
  std::FILE* err = open_memstream(&err_buf, &err_len);
  // Output shorter than the stream's buffer, so that the failing write is the final flush's,
  // whose errno the message names (an earlier one's is gone by then: "a write failed").
  const int status = cli::run({"tapegrad", "eval", "--help"}, full, err);
  std::fclose(full);
  std::fclose(err);
  const std::string message(err_buf, err_len);
  std::free(err_buf);
  CHECK(status == 1);
  CHECK(message.find("tapegrad: error: writing the output failed: No space left on device") != std::string::npos);
}

TEST_CASE("cli: running out of memory names what asked for it" * doctest::skip(kAddressSanitizer)) {
  // Address space for the process as it is and 256 MiB more: the model's 2 GiB weight fails.
  rlimit old{};
  REQUIRE(getrlimit(RLIMIT_AS, &old) == 0);
  const std::string status = test::read_file("/proc/self/status");
  const size_t at = status.find("VmSize:");
  REQUIRE(at != std::string::npos);
  const rlim_t in_use = std::stoull(status.substr(at + 7)) * 1024;
  rlimit tight = old;
  tight.rlim_cur = in_use + (rlim_t{256} << 20);
#pragma omp parallel
  {}  // OpenMP's threads exist before the limit: creating them under it would abort
  REQUIRE(setrlimit(RLIMIT_AS, &tight) == 0);
  TempDir dir("cli_oom");
  const auto r = run_cli({"train", "--d-model", "8192", "--ff", "65536", "--heads", "1", "--out", dir.str()});
  REQUIRE(setrlimit(RLIMIT_AS, &old) == 0);
  INFO(r.err);
  CHECK(r.status == 1);
  CHECK(r.err.find("tapegrad: error: out of memory while reading the data and building the model (--d-model 8192, "
                   "--layers 2, --ff 65536, --batch-size 64)") != std::string::npos);
  CHECK(r.err.find("std::bad_alloc") == std::string::npos);
}
