// Activation checkpointing of the Transformer stacks (checkpoint_layers, nn/checkpointed_layers.h,
// `train --checkpoint-activations`): one tape entry per layer, the plain step's
// loss and gradients, the same training losses, and the flag kept in the run's config.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "train/checkpoint.h"
#include "train/model.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;

namespace {

struct Step {
  double loss = 0;
  NamedTensors grads;
  std::vector<std::string> ops;    // on the tape after the forward
  std::vector<std::string> wraps;  // what each checkpoint entry wraps
  uint64_t rng_offset = 0;         // the generator's, after the backward
};

// One training-mode forward and backward, with dropout's generator reseeded, so both runs draw
// the same masks.
Step step(train::TransformerModel& model, bool checkpointed, const data::Batch& batch) {
  model.set_checkpoint_activations(checkpointed);
  model.zero_grad();
  manual_seed(11);
  tape().clear();
  Tensor loss = cross_entropy(model.forward(batch.inputs, batch.padding_mask), batch.targets);
  Step r;
  r.loss = loss.item();
  for (const auto& e : tape().entries()) {
    r.ops.push_back(e->op);
    if (e->op == "checkpoint") r.wraps.push_back(e->attributes.at(0).second);
  }
  loss.backward();
  for (const auto& [name, p] : model.named_parameters()) r.grads.emplace_back(name, p.grad());
  r.rng_offset = default_generator().offset();
  return r;
}

long count(const std::vector<std::string>& ops, const std::string& op) { return std::ranges::count(ops, op); }

// Training losses of `config` for its steps.
std::vector<double> losses(const train::TrainConfig& config) {
  train::Trainer trainer(config, {.console = nullptr, .write_files = false});
  std::vector<double> out;
  trainer.on_step = [&](const train::StepMetrics& m) { out.push_back(m.loss); };
  trainer.fit();
  return out;
}

void check_same_losses(train::TrainConfig config) {
  config.checkpoint_activations = false;
  const std::vector<double> plain = losses(config);
  config.checkpoint_activations = true;
  const std::vector<double> recomputed = losses(config);
  REQUIRE(plain.size() == static_cast<size_t>(config.steps));
  REQUIRE(recomputed.size() == plain.size());
  for (size_t i = 0; i < plain.size(); ++i) CHECK(recomputed[i] == doctest::Approx(plain[i]).epsilon(1e-5));
  CHECK(plain.front() != plain.back());  // it trained
}

}  // namespace

TEST_CASE("checkpoint activations: encoder and gpt models, fused or composed, give the plain step's loss and "
          "gradients, one entry a layer") {
  data::Batch batch;
  batch.inputs = tensor_i64({3, 4, 5, 6, 7, 2, 8, 9, 0, 0, 5, 5, 6, 7, 8, 9, 10, 11, 1, 2}, {2, 10});
  batch.targets = tensor_i64({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {2, 10});
  for (const auto& path : {std::pair{"encoder", false}, {"gpt", false}, {"gpt", true}}) {
    const char* arch = path.first;  // not a structured binding: CAPTURE's lambda cannot take one (clang)
    const bool composed = path.second;
    CAPTURE(arch);
    CAPTURE(composed);
    const bool gpt = std::string(arch) == "gpt";
    batch.padding_mask = gpt ? Tensor() : tensor_bool({0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 10});
    manual_seed(5);
    train::TransformerModel model({.vocab_size = 12, .num_classes = 12, .max_len = 16, .d_model = 32, .heads = 2,
                                   .layers = 2, .ff = 64, .dropout = 0.2, .causal = gpt, .arch = arch});
    model.train();
    model.set_composed(composed);
    const char* attention_op = composed ? "softmax" : "fused_attention";  // one per layer
    const Step plain = step(model, false, batch), recomputed = step(model, true, batch);
    CHECK(count(plain.ops, "checkpoint") == 0);
    CHECK(count(recomputed.ops, "checkpoint") == 2);
    CHECK(recomputed.wraps == std::vector<std::string>{"encoder.layers.0", "encoder.layers.1"});
    CHECK(count(plain.ops, attention_op) == 2);
    CHECK(count(recomputed.ops, attention_op) == 0);  // the layers' ops are not on the tape
    CHECK(recomputed.ops.size() + 2 * 10 < plain.ops.size());
    CHECK(recomputed.loss == doctest::Approx(plain.loss).epsilon(1e-6));
    CHECK(recomputed.rng_offset == plain.rng_offset);
    REQUIRE(recomputed.grads.size() == plain.grads.size());
    for (size_t i = 0; i < plain.grads.size(); ++i) {
      CAPTURE(plain.grads[i].first);
      REQUIRE(plain.grads[i].second.defined());
      test::require_close(recomputed.grads[i].second, plain.grads[i].second, 1e-6, 1e-4);
    }

    // Evaluation and no-grad forwards run the layers plainly.
    tape().clear();
    model.eval();
    const Tensor evaluated = cross_entropy(model.forward(batch.inputs, batch.padding_mask), batch.targets);
    std::vector<std::string> eval_ops;
    for (const auto& e : tape().entries()) eval_ops.push_back(e->op);
    CHECK(count(eval_ops, "checkpoint") == 0);
    CHECK(count(eval_ops, attention_op) == 2);
  }
}

TEST_CASE("checkpoint activations: a few training steps of gpt and seq2seq give the plain run's losses") {
  test::TempDir dir("checkpoint_activations_train");
  train::TrainConfig gpt = test::tiny_config("lm", dir.path() / "gpt");
  gpt.arch = "gpt", gpt.layers = 2, gpt.dropout = 0.1, gpt.steps = 4, gpt.warmup = 1;
  check_same_losses(gpt);

  train::TrainConfig seq2seq = train::seq2seq_defaults();
  seq2seq.out = (dir.path() / "seq2seq").string();
  seq2seq.d_model = 16, seq2seq.heads = 2, seq2seq.layers = 2, seq2seq.ff = 32, seq2seq.dropout = 0.1;
  seq2seq.batch_size = 8, seq2seq.steps = 3, seq2seq.warmup = 1, seq2seq.val_examples = 8;
  check_same_losses(seq2seq);
}

TEST_CASE("cli: train --checkpoint-activations says so, stores the flag only when given, and --resume keeps it") {
  test::TempDir dir("cli_checkpoint_activations");
  const std::string corpus = (dir.path() / "corpus.txt").string();
  data::write_grammar_corpus(corpus, 300);
  const auto train = [&](const std::string& out, const std::vector<std::string>& extra) {
    return test::run_cli(test::tiny_gpt_run(corpus, out, extra));
  };
  const auto stored = [](const std::string& out) {
    return nlohmann::json::parse(train::to_json(train::load_checkpoint(train::checkpoint_file(out)).config));
  };
  const std::string plain = (dir.path() / "plain").string(), recomputed = (dir.path() / "recomputed").string();
  auto r = train(plain, {});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("--checkpoint-activations") == std::string::npos);
  CHECK_FALSE(stored(plain).contains("checkpoint_activations"));

  r = train(recomputed, {"--checkpoint-activations"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("each layer's activations recomputed in the backward (--checkpoint-activations)") !=
        std::string::npos);
  CHECK(stored(recomputed).at("checkpoint_activations") == true);

  r = test::run_cli({"train", "--resume", recomputed, "--steps", "+2"});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("(--checkpoint-activations)") != std::string::npos);
  CHECK(train::load_checkpoint(train::checkpoint_file(recomputed)).step == 5);
  CHECK(stored(recomputed).at("checkpoint_activations") == true);

  CHECK(test::run_cli({"train", "--help"}).out.find("--checkpoint-activations") != std::string::npos);
}

TEST_CASE("checkpoint activations: a standalone TransformerEncoder checkpoints its layers.N and runs its forward hook") {
  manual_seed(3);
  nn::TransformerEncoder encoder({.d_model = 8, .nhead = 2, .dim_feedforward = 16, .dropout = 0.1, .norm_first = true},
                                 2, /*final_norm=*/true);
  encoder.checkpoint_layers = true;
  int hooked = 0;
  const HookHandle hook = encoder.register_forward_hook([&](const nn::Module&, const TensorList&, const TensorList&) {
    ++hooked;
  });
  Tensor src = randn({2, 3, 8}).requires_grad_();
  tape().clear();
  const Tensor out = encoder.forward(src);
  std::vector<std::string> wraps;
  for (const auto& e : tape().entries())
    if (e->op == "checkpoint") wraps.push_back(e->attributes.at(0).second);
  CHECK(wraps == std::vector<std::string>{"layers.0", "layers.1"});
  CHECK(hooked == 1);
  sum(out).backward();
  CHECK(src.grad().defined());
}
