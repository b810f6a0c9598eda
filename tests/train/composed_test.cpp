// The composed ("teaching") path of the whole model (nn::Module::set_composed, train/eval
// --composed): every op recorded separately, with the fused path's loss and gradients.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "train/checkpoint.h"
#include "train/model.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;

namespace {

struct LossAndGrads {
  double loss = 0;
  NamedTensors grads;
  std::vector<std::string> ops;  // on the tape
};

// One training-mode forward and backward of the model at `dtype` on the given path, with the
// global generator (dropout) reseeded, so both paths draw the same masks.
LossAndGrads composed_step(train::TransformerModel& model, bool composed, const data::Batch& batch) {
  model.set_composed(composed);
  model.zero_grad();
  manual_seed(11);
  tape().clear();
  Tensor loss = cross_entropy(model.forward(batch.inputs, batch.padding_mask), batch.targets);
  LossAndGrads r{loss.item(), {}, {}};
  for (const auto& e : tape().entries()) r.ops.push_back(e->op);
  loss.backward();
  for (const auto& [name, p] : model.named_parameters()) r.grads.emplace_back(name, p.grad());
  return r;
}

bool has(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

}  // namespace

TEST_CASE("composed path: the default model's loss and every parameter gradient equal the fused path's") {
  // The default model (train/config.h: d_model 64, 4 heads, 2 layers, ff 256), with dropout on so
  // that the masks are compared too, on a padded batch.
  const train::TrainConfig defaults;
  data::Batch batch;
  batch.inputs = tensor_i64({3, 4, 5, 6, 7, 2, 8, 9, 0, 0, 0, 0, 5, 5, 6, 7, 8, 9, 10, 11}, {2, 10});
  batch.padding_mask = tensor_bool({0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0}, {2, 10});
  batch.targets = tensor_i64({1, 2, 3, 4, 5, 6, 7, 8, -100, -100, -100, -100, 1, 1, 2, 3, 4, 5, 6, 7}, {2, 10});
  for (DType dtype : {kF32, kF64}) {
    for (double dropout : {0.0, 0.1}) {
      CAPTURE(dtype_name(dtype));
      CAPTURE(dropout);
      manual_seed(5);
      train::TransformerModel model({.vocab_size = 12, .num_classes = 10, .max_len = 16, .d_model = defaults.d_model,
                                     .heads = defaults.heads, .layers = defaults.layers, .ff = defaults.ff,
                                     .dropout = dropout});
      model.to_(dtype);
      model.train();
      const LossAndGrads fused = composed_step(model, false, batch), composed = composed_step(model, true, batch);
      CHECK(has(fused.ops, "fused_attention"));
      CHECK(has(fused.ops, "linear"));
      CHECK(has(fused.ops, "linear_relu_dropout") == (dropout > 0));  // without dropout a linear and a relu
      for (const char* op : {"fused_attention", "linear_relu_dropout", "relu_dropout", "linear"})
        CHECK_FALSE(has(composed.ops, op));
      CHECK(has(composed.ops, "softmax"));
      CHECK(has(composed.ops, "matmul"));
      CHECK(composed.ops.size() > fused.ops.size() + 30);  // 83 entries vs 45 without dropout
      const double tol = dtype == kF64 ? 1e-11 : 2e-5;
      CHECK(composed.loss == doctest::Approx(fused.loss).epsilon(tol));
      REQUIRE(composed.grads.size() == fused.grads.size());
      for (size_t i = 0; i < fused.grads.size(); ++i) {
        CAPTURE(fused.grads[i].first);
        REQUIRE(fused.grads[i].second.defined());
        test::require_close(composed.grads[i].second, fused.grads[i].second, tol, dtype == kF64 ? 1e-9 : 1e-3);
      }
    }
  }
}

TEST_CASE("composed path: a few training steps give the fused path's losses, the run's config says which ran") {
  test::TempDir dir("composed_train");
  train::TrainConfig config = test::tiny_config("reverse", dir.path() / "run");
  config.steps = 5, config.warmup = 1, config.dropout = 0.1;
  auto losses = [&](bool composed) {
    config.composed = composed;
    train::Trainer trainer(config, {.console = nullptr, .write_files = false});
    CHECK(trainer.model().is_composed() == composed);
    std::vector<double> out;
    trainer.on_step = [&](const train::StepMetrics& m) { out.push_back(m.loss); };
    trainer.fit();
    return out;
  };
  const std::vector<double> fused = losses(false), composed = losses(true);
  REQUIRE(fused.size() == 5);
  REQUIRE(composed.size() == 5);
  for (size_t i = 0; i < fused.size(); ++i) CHECK(composed[i] == doctest::Approx(fused[i]).epsilon(1e-4));
  CHECK(fused.front() != fused.back());  // it trained

  // The CLI: train --composed says so and records it in the checkpoint's config; eval --composed
  // gives the fused evaluation's figures.
  const std::string out = (dir.path() / "cli").string();
  auto r = test::run_cli({"train", "--composed", "--task", "copy", "--steps", "3", "--warmup", "1", "--d-model", "16",
                          "--heads", "2", "--layers", "1", "--ff", "16", "--eval-batches", "1", "--out", out});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("composed path (--composed)") != std::string::npos);
  CHECK(train::load_checkpoint(train::checkpoint_file(out)).config.composed);
  CHECK(nlohmann::json::parse(train::to_json(train::load_checkpoint(train::checkpoint_file(out)).config))
            .at("composed") == true);
  const auto fused_eval = test::run_cli({"eval", out, "--batches", "1", "--show", "0"});
  const auto composed_eval = test::run_cli({"eval", out, "--batches", "1", "--show", "0", "--composed"});
  REQUIRE(fused_eval.status == 0);
  REQUIRE(composed_eval.status == 0);
  CHECK(fused_eval.out.find("fused path") != std::string::npos);
  CHECK(composed_eval.out.find("composed path") != std::string::npos);
  auto figures = [](const std::string& text) {  // "validation set, ... exact match 0.1234" without the timing
    const size_t from = text.find("validation set"), to = text.find(" (", from);
    return text.substr(from, to - from);
  };
  CHECK(figures(fused_eval.out) == figures(composed_eval.out));
}
