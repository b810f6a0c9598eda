// The trainers' observers (train/fit_observer.h): told after every checkpoint, in the order
// attached, with the run's records so far; the trainers themselves write no page and no CSV.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "test_util.h"
#include "train/train.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

// What an observer saw at each checkpoint: "<name> step <s>: <train records>/<eval records>, checkpoint at <step>".
class CheckpointWitness : public train::FitObserver {
 public:
  CheckpointWitness(std::string name, std::filesystem::path run, std::vector<std::string>& calls)
      : name_(std::move(name)), run_(std::move(run)), calls_(calls) {}
  void checkpoint_written(int64_t step, const train::MetricsLog& metrics) override {
    const std::filesystem::path file = run_ / "checkpoint.safetensors";
    const int64_t saved = std::filesystem::exists(file) ? train::load_checkpoint(file).step : -1;
    calls_.push_back(fmt::format("{} step {}: {}/{}, checkpoint at {}", name_, step, metrics.steps.size(),
                                 metrics.evals.size(), saved));
  }

 private:
  std::string name_;
  std::filesystem::path run_;
  std::vector<std::string>& calls_;
};

// The files of a run directory, by name.
std::vector<std::string> files_in(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

const std::vector<std::string> kCheckpointsAt3And6And7 = {
    "a step 3: 3/1, checkpoint at 3", "b step 3: 3/1, checkpoint at 3", "a step 6: 6/2, checkpoint at 6",
    "b step 6: 6/2, checkpoint at 6", "a step 7: 7/3, checkpoint at 7", "b step 7: 7/3, checkpoint at 7"};

}  // namespace

TEST_CASE("Trainer: observers are told after every checkpoint in the order attached, and it writes no page itself") {
  TempDir dir("fit_observer");
  train::TrainConfig config = test::tiny_config("reverse", dir.path() / "run");
  config.steps = 7, config.eval_every = 3, config.warmup = 1;
  std::vector<std::string> calls;
  train::Trainer trainer(config, {.console = nullptr});
  trainer.attach(std::make_shared<CheckpointWitness>("a", config.out, calls));
  trainer.attach(std::make_shared<CheckpointWitness>("b", config.out, calls));
  trainer.fit();
  CHECK(calls == kCheckpointsAt3And6And7);
  CHECK(files_in(config.out) == std::vector<std::string>{"checkpoint.safetensors", "metrics.jsonl"});

  // Without files (a data-parallel rank other than 0) there is no checkpoint to tell of.
  calls.clear();
  config.out = (dir.path() / "silent").string();
  train::Trainer silent(config, {.console = nullptr, .write_files = false});
  silent.attach(std::make_shared<CheckpointWitness>("a", config.out, calls));
  silent.fit();
  CHECK(calls.empty());
  CHECK_FALSE(std::filesystem::exists(config.out));
}

TEST_CASE("Trainer of a seq2seq run: observers are told after every checkpoint in the order attached, and it writes no page") {
  TempDir dir("fit_observer_seq2seq");
  train::TrainConfig config = train::seq2seq_defaults();
  config.d_model = 16, config.heads = 2, config.layers = 1, config.ff = 32;
  config.steps = 7, config.batch_size = 8, config.warmup = 1, config.eval_every = 3, config.val_examples = 8;
  config.out = (dir.path() / "run").string();
  std::vector<std::string> calls;
  train::Trainer trainer(config, {.console = nullptr});
  trainer.attach(std::make_shared<CheckpointWitness>("a", config.out, calls));
  trainer.attach(std::make_shared<CheckpointWitness>("b", config.out, calls));
  trainer.fit();
  CHECK(calls == kCheckpointsAt3And6And7);
  CHECK(files_in(config.out) == std::vector<std::string>{"checkpoint.safetensors", "metrics.jsonl"});
}
