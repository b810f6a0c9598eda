// Trainer: the loss falls on two tasks, the metrics log and the checkpoint are written, and
// gradient accumulation takes grad_accum batches per update.
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "train/train.h"  // the layer's umbrella header
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

struct Run {
  std::vector<train::StepMetrics> steps;
  train::FitResult result;
};

Run fit(const train::TrainConfig& config, bool write_files = false) {
  Run run;
  train::Trainer trainer(config, {.console = nullptr, .write_files = write_files});
  trainer.on_step = [&](const train::StepMetrics& m) { run.steps.push_back(m); };
  run.result = trainer.fit();
  return run;
}

double mean_loss(const std::vector<train::StepMetrics>& steps, size_t first, size_t count) {
  double total = 0;
  for (size_t i = first; i < first + count; ++i) total += steps[i].loss;
  return total / static_cast<double>(count);
}

}  // namespace

TEST_CASE("Trainer: the loss falls on the copy task and on the character LM") {
  // A model that learned nothing stays near ln(classes) (copy: ln 15 = 2.7). Measured: copy
  // 2.99 -> 1.21, LM 3.87 -> 2.22 (the first and last 5 steps' mean loss).
  struct Case {
    const char* task;
    double start_above, end_below;
  };
  for (const Case& c : {Case{"copy", 2.5, 1.5}, Case{"lm", 3.3, 2.6}}) {
    CAPTURE(std::string(c.task));
    TempDir dir(std::string("fall_") + c.task);
    const Run run = fit(test::tiny_config(c.task, dir.path()));
    REQUIRE(run.steps.size() == 60);
    CHECK(mean_loss(run.steps, 0, 5) > c.start_above);
    CHECK(mean_loss(run.steps, 55, 5) < c.end_below);
    CHECK(run.result.eval.loss < c.end_below);
    CHECK(run.result.eval.step == 60);
    CHECK(run.result.ms_per_step > 0);
  }
}

TEST_CASE("Trainer: metrics.jsonl has every step and evaluation, the checkpoint holds the run") {
  TempDir dir("log");
  train::TrainConfig config = test::tiny_config("reverse", dir.path());
  config.steps = 12, config.eval_every = 5, config.warmup = 2;
  const Run run = fit(config, /*write_files=*/true);

  std::vector<int64_t> train_steps, eval_steps;
  std::istringstream log(test::read_file(dir.path() / "metrics.jsonl"));
  for (std::string line; std::getline(log, line);) {
    const auto j = nlohmann::json::parse(line);
    (j.at("type") == "train" ? train_steps : eval_steps).push_back(j.at("step"));
    if (j.at("type") == "train") CHECK(j.at("loss").get<double>() == run.steps[train_steps.size() - 1].loss);
  }
  CHECK(train_steps == std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  CHECK(eval_steps == std::vector<int64_t>{5, 10, 12});

  const train::Checkpoint c = train::load_checkpoint(dir.path() / "checkpoint.safetensors");
  CHECK(c.step == 12);
  CHECK(c.config == config);
  CHECK(c.model_config.num_classes == 15);  // 5 reserved tokens + 10 digits
  CHECK(c.input_vocab.size() == 15);
  CHECK(c.loader == data::LoaderState{1, 0});  // one batch per update: the 12 batches of epoch 0 are used up
}

TEST_CASE("Trainer: grad_accum takes that many batches per update and halves each one's share") {
  TempDir dir("accum");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 3, config.warmup = 1;
  const Run one = fit(config);
  config.grad_accum = 2;
  const Run two = fit(config);
  // update 1 of the accumulating run sees batches 0 and 1: twice the tokens, and its loss is
  // the mean of the two batches' losses, the first of which is update 1 of the other run
  CHECK(two.steps[0].tokens > one.steps[0].tokens);
  CHECK(two.steps[0].loss != one.steps[0].loss);
  for (const auto& m : two.steps) CHECK(std::isfinite(m.loss));
}

TEST_CASE("config: JSON round trip, validation and resumable differences") {
  train::TrainConfig c;
  c.task = "sort", c.lr = 1.0 / 3, c.seed = 1ull << 60;
  CHECK(train::config_from_json(train::to_json(c)) == c);
  CHECK(train::config_from_json("{\"steps\": 7}").steps == 7);  // missing fields keep their defaults
  CHECK_THROWS_WITH_AS(train::config_from_json("{\"steps\": \"many\"}"), doctest::Contains("field \"steps\""), Error);
  CHECK_THROWS_WITH_AS(train::config_from_json("[1"), doctest::Contains("config: the config is not valid JSON"), Error);

  train::TrainConfig bad = c;
  bad.task = "translate";
  CHECK_THROWS_WITH_AS(train::validate(bad), doctest::Contains("unknown task \"translate\""), Error);
  bad = c, bad.warmup = bad.steps;
  CHECK_THROWS_WITH_AS(train::validate(bad), doctest::Contains("warmup must be in [0, steps"), Error);
  bad = c, bad.device = "tpu";
  CHECK_THROWS_WITH_AS(train::validate(bad), doctest::Contains("unknown device \"tpu\""), Error);
  CHECK(train::parse_device("cuda:1") == Device::cuda(1));

  train::TrainConfig other = c;
  other.lr = 0.5, other.steps = 9;
  const auto diff = train::differing_fields(c, other);
  REQUIRE(diff.size() == 2);
  CHECK(diff[0].field == "steps");
  CHECK(diff[1].field == "lr");
  CHECK(diff[1].b == "0.5");
}

TEST_CASE("Trainer: plain log lines off a terminal, and a requested stop writes a checkpoint") {
  TempDir dir("console");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 8, config.warmup = 1, config.log_every = 2, config.eval_every = 4;
  char* buffer = nullptr;
  size_t size = 0;
  std::FILE* console = open_memstream(&buffer, &size);  // not a terminal: no progress bar
  train::Trainer t(config, {.console = console});
  t.stop_requested = [&] { return t.step() == 6; };  // as Ctrl-C in `tapegrad train` does
  const train::FitResult r = t.fit();
  std::fclose(console);
  const std::string text(buffer, size);
  std::free(buffer);

  CHECK(r.stopped);
  CHECK(r.steps_run == 6);
  CHECK(train::load_checkpoint(t.checkpoint_path()).step == 6);
  CHECK(text.find("step 2/8  lr ") != std::string::npos);
  CHECK(text.find("step 6/8  lr ") != std::string::npos);
  CHECK(text.find("step 3/8") == std::string::npos);
  CHECK(text.find("ETA ") != std::string::npos);
  CHECK(text.find("eval at step 4: loss ") != std::string::npos);
  CHECK(text.find("eval at step 6") == std::string::npos);  // a stop makes no evaluation that is not due
  CHECK(text.find('\r') == std::string::npos);
}

TEST_CASE("Trainer: a stop at a step where an evaluation is due makes it, as the uninterrupted run does") {
  TempDir dir("stop_at_eval");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 8, config.warmup = 1, config.eval_every = 4;
  train::Trainer t(config, {.console = nullptr});
  t.stop_requested = [&] { return t.step() == 4; };
  const train::FitResult r = t.fit();
  CHECK(r.stopped);
  CHECK(r.eval.step == 4);
  CHECK(test::read_file(dir.path() / "metrics.jsonl").find("\"type\":\"eval\",\"step\":4,") != std::string::npos);
  CHECK(train::load_checkpoint(t.checkpoint_path()).step == 4);
}

TEST_CASE("Trainer: task_as gives the run's task as its class, and refuses another naming the arch") {
  TempDir dir("trainer_task_as");
  train::Trainer t(test::tiny_config("copy", dir.path()), {.console = nullptr, .write_files = false});
  CHECK(&t.task_as<train::SequenceTask>().model() == &t.model());
  CHECK_THROWS_WITH_AS(t.task_as<train::Seq2SeqTask>(),
                       "Trainer: the run of arch encoder has another task than the one asked for", Error);
}
