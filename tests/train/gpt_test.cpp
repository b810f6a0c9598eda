// The decoder-only (GPT-style) model: its parameters, training, checkpoints and the CLI
// (train --arch gpt, sample through the key/value cache, eval, export).
#include <nlohmann/json.hpp>

#include "core/grad_mode.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/sequence_task.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::run_cli;
using tg::test::TempDir;

namespace {

train::TrainConfig gpt_run(const std::filesystem::path& out, bool tie_weights) {
  train::TrainConfig c = test::tiny_config("lm", out);
  c.arch = "gpt", c.tie_weights = tie_weights;
  return c;
}

bool has_entry(const NamedTensors& state, const std::string& name) {
  for (const auto& [key, t] : state)
    if (key == name) return true;
  return false;
}

}  // namespace

TEST_CASE("gpt model: learned positions, a tied or untied head, parameter_count as built") {
  for (bool tied : {false, true}) {
    CAPTURE(tied);
    const train::ModelConfig c{.vocab_size = 13, .num_classes = 13, .max_len = 9, .d_model = 16, .heads = 2,
                               .layers = 2, .ff = 24, .causal = true, .arch = "gpt", .tie_weights = tied};
    train::TransformerModel model(c);
    int64_t n = 0;
    for (const auto& [name, t] : model.named_parameters()) n += t.numel();
    CHECK(train::parameter_count(c) == n);
    const NamedTensors state = model.state_dict();
    CHECK(has_entry(state, "pos_encoding.weight"));
    CHECK(has_entry(state, "head.weight") == !tied);
    CHECK(model.forward(tensor_i64({5, 6, 7}, {1, 3})).shape() == Shape{1, 3, 13});
  }
  const auto refused = [](train::ModelConfig c, const char* message) {
    CHECK_THROWS_WITH_AS(train::TransformerModel{c}, doctest::Contains(message), Error);
  };
  const train::ModelConfig gpt{.vocab_size = 13, .num_classes = 13, .max_len = 9, .d_model = 16, .heads = 2,
                               .layers = 1, .ff = 24, .causal = true, .arch = "gpt"};
  train::ModelConfig c = gpt;
  c.arch = "rnn";
  refused(c, "arch must be encoder, gpt or seq2seq, got \"rnn\"");
  c = gpt, c.causal = false;
  refused(c, "a gpt model must be causal");
  c = gpt, c.tie_weights = true, c.num_classes = 12;
  refused(c, "tie_weights needs num_classes == vocab_size, got 12 and 13");
  c = gpt, c.tie_weights = true, c.arch = "encoder";
  refused(c, "tie_weights needs arch gpt");
}

TEST_CASE("gpt model: a short language-model run's loss falls") {
  TempDir dir("gpt_train");
  train::Trainer trainer(gpt_run(dir.path(), true), {.console = nullptr, .write_files = false});
  std::vector<double> losses;
  trainer.on_step = [&](const train::StepMetrics& m) { losses.push_back(m.loss); };
  const train::FitResult r = trainer.fit();  // 60 steps
  REQUIRE(losses.size() == 60);
  double last = 0;
  for (size_t i = 50; i < 60; ++i) last += losses[i] / 10;
  CHECK(last < 0.75 * losses[0]);
  CHECK(r.eval.loss < 0.75 * losses[0]);
}

TEST_CASE("gpt model: the checkpoint keeps the arch, load, resume and a mismatch") {
  TempDir dir("gpt_ckpt");
  train::TrainConfig config = gpt_run(dir.path(), true);
  config.steps = 3, config.warmup = 1;
  train::Trainer trainer(config, {.console = nullptr});
  trainer.fit();
  const std::filesystem::path file = trainer.checkpoint_path();
  const train::Checkpoint c = train::load_checkpoint(file);
  CHECK(c.model_config == trainer.task().model_config());
  CHECK(c.model_config.arch == "gpt");
  CHECK(c.model_config.tie_weights);
  CHECK(c.config.arch == "gpt");
  auto loaded = train::load_model(c);
  trainer.model().eval();
  NoGradGuard no_grad;
  const Tensor ids = tensor_i64({5, 6, 7, 8}, {1, 4});
  CHECK(loaded->forward(ids).to_vector<float>() ==
        trainer.task_as<train::SequenceTask>().model().forward(ids).to_vector<float>());

  train::TrainConfig longer = config;
  longer.steps = 5;
  train::Trainer resumed(longer, {.console = nullptr});
  resumed.resume(file);
  CHECK(resumed.step() == 3);
  train::TrainConfig untied = longer;
  untied.tie_weights = false;
  train::Trainer other(untied, {.console = nullptr});
  CHECK_THROWS_WITH_AS(other.resume(file), doctest::Contains("tie_weights (checkpoint true, now false)"), Error);

  SafetensorsFile f = load_safetensors(file);  // metadata whose model is not the config's
  nlohmann::ordered_json model = nlohmann::ordered_json::parse(f.metadata.at("model"));
  model["arch"] = "encoder", model["tie_weights"] = false;
  f.metadata["model"] = model.dump();
  save_safetensors(dir.path() / "edited.safetensors", f.tensors, f.metadata);
  CHECK_THROWS_WITH_AS(train::load_checkpoint(dir.path() / "edited.safetensors"),
                       doctest::Contains("arch is encoder but the config gives gpt"), Error);
}

TEST_CASE("cli: train --arch gpt, sample with and without the cache, eval, export") {
  TempDir dir("cli_gpt");
  const std::string out = (dir.path() / "run").string(), corpus = (dir.path() / "corpus.txt").string();
  data::write_grammar_corpus(corpus, 300);
  auto r = run_cli({"train", "--task", "lm", "--arch", "gpt", "--tie-weights", "--data", corpus, "--block-size", "12",
                    "--d-model", "16", "--heads", "2", "--layers", "1", "--ff", "32", "--batch-size", "8", "--steps",
                    "4", "--warmup", "2", "--eval-batches", "1", "--out", out});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("tapegrad train: task lm on ") != std::string::npos);
  CHECK(r.out.find(", arch gpt (tied head), ") != std::string::npos);

  const std::vector<std::string> sample = {"sample", out, "--tokens", "20", "--temperature", "0.9", "--top-k", "6",
                                           "--top-p", "0.95", "--seed", "2"};
  r = run_cli(sample);
  REQUIRE(r.status == 0);
  CHECK(r.out.starts_with("the "));
  std::vector<std::string> uncached = sample;
  uncached.push_back("--no-cache");
  CHECK(run_cli(uncached).out == r.out);  // 4 + 20 characters pass max_len (12): the window slides
  r = run_cli({"eval", out});
  CHECK(r.status == 0);
  CHECK(r.out.find("token accuracy") != std::string::npos);
  r = run_cli({"export", out, "--format", "pytorch", (dir.path() / "exported").string()});
  CHECK(r.status == 0);  // its files: tests/train/pytorch_export_test.cpp

  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  const Case cases[] = {
      {{"train", "--arch", "gpt", "--task", "reverse"}, "--arch: gpt is a decoder-only language model: it needs --task lm"},
      {{"train", "--tie-weights"}, "--tie-weights: ties a gpt model's head to its embedding: it needs --arch gpt"},
      {{"train", "--arch", "rnn"}, "--arch: rnn not in {encoder,gpt,seq2seq}"},
      {{"sample", out, "--top-k", "2"}, "--top-k: restricts sampling: it needs --temperature > 0"},
      {{"sample", out, "--top-p", "0.5"}, "--top-p: restricts sampling: it needs --temperature > 0"},
      {{"sample", out, "--temperature", "1", "--top-k", "99"}, "--top-k: must be in [0, "},
      {{"sample", out, "--top-p", "0"}, "--top-p: must be a finite number in (0, 1], got 0"},
      {{"sample", out, "--top-p", "1.2"}, "--top-p: must be a finite number in (0, 1], got 1.2"},
      {{"sample", out, "--tokens", "-1"}, "--tokens: must be an integer in [0, 1048576], got -1"},
      {{"sample", out, "--stop", "\x01"}, "--stop: \"\\x01\" has a character the model never writes"},  // shown escaped
  };
  for (const Case& c : cases) {
    CAPTURE(fmt::format("{}", fmt::join(c.args, " ")));
    const auto e = run_cli(c.args);
    CHECK(e.status == 2);
    CHECK(e.err.find(c.message) != std::string::npos);
  }
}
