// Checkpoints written by an earlier tapegrad still load and resume exactly: one small run per
// arch (encoder, gpt, seq2seq) is committed in tests/fixtures/checkpoints/<arch>/, written by
// the command in its README. Each test trains the same run afresh with today's program, which
// must write the same checkpoint bit for bit, in the numerics version they were written in (1,
// core/numerics.h), then continues both for kMoreSteps steps: the losses and the weights must
// agree bit for bit.
//
// The runs are the tapegrad program (TAPEGRAD_PROGRAM), as the fixtures were written, not
// run_cli in this process: there (a binary whose test files compile at -O1, tests/CMakeLists.txt)
// the same run ends a few bits away from the program's.
#include <cstring>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "core/io/run_program.h"
#include "core/io/safetensors.h"
#include "test_util.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

constexpr const char* kMoreSteps = "+3";

std::filesystem::path fixture(const std::string& arch) {
  return std::filesystem::path(TAPEGRAD_SOURCE_DIR) / "tests" / "fixtures" / "checkpoints" / arch;
}

// The run's flags as the fixture's README gives them, writing into `out`. One thread, as the
// fixtures were written: some reductions round differently on more (docs/design.md, "Determinism");
// numerics version 1, which they were written in (a fresh run takes the latest).
std::vector<std::string> fixture_flags(const std::string& arch, const std::filesystem::path& out) {
  std::vector<std::string> flags = {"train", "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "32",
                                    "--dropout", "0.1", "--batch-size", "8", "--grad-accum", "2", "--steps", "4",
                                    "--warmup", "2", "--eval-every", "2", "--eval-batches", "1", "--seed", "7",
                                    "--threads", "1", "--numerics", "1", "--out", out.string()};
  const std::vector<std::string> task =
      arch == "encoder" ? std::vector<std::string>{"--task", "copy", "--max-len", "5", "--val-examples", "16"}
      : arch == "gpt"   ? std::vector<std::string>{"--task", "lm", "--arch", "gpt", "--block-size", "12"}
                        : std::vector<std::string>{"--task", "addition", "--arch", "seq2seq", "--val-examples", "16"};
  flags.insert(flags.end(), task.begin(), task.end());
  return flags;
}

// Every tensor's dtype, shape and bytes, and the metadata but the run directory, by name.
std::map<std::string, std::string> contents(const std::filesystem::path& file) {
  const SafetensorsFile f = load_safetensors(file);
  std::map<std::string, std::string> out;
  for (const auto& [name, t] : f.tensors) {
    std::string bytes(static_cast<size_t>(t.numel()) * element_size(t.dtype()), '\0');
    if (!bytes.empty()) std::memcpy(bytes.data(), t.raw_data(), bytes.size());
    out[name] = t.describe() + " " + bytes;
  }
  for (auto [key, value] : f.metadata) {
    if (key == "config") {
      auto config = nlohmann::json::parse(value);
      config.erase("out");
      value = config.dump();
    }
    out["metadata " + key] = value;
  }
  return out;
}

// The two checkpoints hold the same entries, bit for bit (a difference is named).
void check_same_checkpoint(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto x = contents(a), y = contents(b);
  CHECK(x.size() == y.size());
  for (const auto& entry : x) {
    const std::string& name = entry.first;  // CAPTURE takes it by reference: not a structured binding
    CAPTURE(name);
    CHECK((y.contains(name) && y.at(name) == entry.second));
  }
}

std::vector<double> train_losses(const std::filesystem::path& run) {
  std::vector<double> out;
  std::istringstream in(test::read_file(run / "metrics.jsonl"));
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.at("type") == "train") out.push_back(j.at("loss"));
  }
  return out;
}

// `tapegrad args...` as its own process, without a shell (the temporary folder's name is never
// read as syntax); a failure throws, naming its exit status and the start of its stderr.
void require_ran(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {TAPEGRAD_PROGRAM};
  argv.insert(argv.end(), args.begin(), args.end());
  run_program("old checkpoints test", argv, "", "");
}

void check_fixture_resumes_exactly(const std::string& arch) {
  TempDir dir("old_checkpoint_" + arch);
  const std::filesystem::path old_run = dir.path() / "old", new_run = dir.path() / "new";
  std::filesystem::create_directories(old_run);
  for (const char* file : {"checkpoint.safetensors", "metrics.jsonl"})
    std::filesystem::copy_file(fixture(arch) / file, old_run / file);

  require_ran(fixture_flags(arch, new_run));
  check_same_checkpoint(new_run / "checkpoint.safetensors", old_run / "checkpoint.safetensors");

  for (const auto& run : {old_run, new_run})
    require_ran({"train", "--resume", run.string(), "--steps", kMoreSteps, "--threads", "1"});
  const std::vector<double> losses = train_losses(new_run);
  REQUIRE(losses.size() == 7);
  CHECK(train_losses(old_run) == losses);  // exact equality of doubles
  check_same_checkpoint(old_run / "checkpoint.safetensors", new_run / "checkpoint.safetensors");
}

}  // namespace

TEST_CASE("old checkpoints: an encoder run's fixture is today's checkpoint and resumes bit for bit") {
  check_fixture_resumes_exactly("encoder");
}

TEST_CASE("old checkpoints: a gpt run's fixture is today's checkpoint and resumes bit for bit") {
  check_fixture_resumes_exactly("gpt");
}

TEST_CASE("old checkpoints: a seq2seq run's fixture is today's checkpoint and resumes bit for bit") {
  check_fixture_resumes_exactly("seq2seq");
}
