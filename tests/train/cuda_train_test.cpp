// Training on the GPU against the CPU reference: the same seed gives the same initial weights,
// batches and dropout masks on both devices (Philox), so the losses agree to float tolerance.
// All cases here skip without a GPU.
#include <cmath>
#include <limits>
#include <regex>

#include <fmt/format.h>

#include "test_util.h"
#include "train/checkpoint.h"
#include "train/generate.h"
#include "train/sequence_task.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::gpu_available_or_skip;
using tg::test::run_cli;
using tg::test::TempDir;
using tg::test::tiny_config;

namespace {

// The losses and gradient norms of `steps` updates of a Trainer on `device`.
struct Run {
  std::vector<double> losses, grad_norms;
  train::EvalMetrics eval;
};

Run train_on(train::TrainConfig c, const std::string& device, int64_t steps) {
  c.device = device;
  train::Trainer trainer(c, {.console = nullptr, .write_files = false});
  Run r;
  trainer.on_step = [&](const train::StepMetrics& m) {
    r.losses.push_back(m.loss);
    r.grad_norms.push_back(m.grad_norm);
  };
  r.eval = trainer.fit(steps).eval;
  return r;
}

// "validation at step N: loss X, token accuracy Y, ..." of `tapegrad train` -> {X, Y}.
std::pair<double, double> validation_of(const std::string& out) {
  std::smatch m;
  const std::regex line(R"(validation at step \d+: loss ([0-9.]+), token accuracy ([0-9.]+))");
  REQUIRE_MESSAGE(std::regex_search(out, m, line), out);
  return {std::stod(m[1]), std::stod(m[2])};
}

}  // namespace

TEST_CASE("train: a few steps on cuda give the CPU's losses, with dropout (GPU)") {
  if (!gpu_available_or_skip()) return;
  TempDir dir("cuda_train_losses");
  train::TrainConfig c = tiny_config("reverse", dir.path());
  c.dropout = 0.1, c.steps = 8, c.warmup = 2;
  const Run cpu = train_on(c, "cpu", 8), gpu = train_on(c, "cuda", 8);
  REQUIRE(cpu.losses.size() == 8);
  REQUIRE(gpu.losses.size() == 8);
  for (size_t s = 0; s < cpu.losses.size(); ++s) {
    INFO("step " << s + 1 << ": cpu loss " << cpu.losses[s] << ", cuda loss " << gpu.losses[s] << "; grad norm cpu "
                 << cpu.grad_norms[s] << ", cuda " << gpu.grad_norms[s]);
    CHECK(gpu.losses[s] == doctest::Approx(cpu.losses[s]).epsilon(1e-4));
    CHECK(gpu.grad_norms[s] == doctest::Approx(cpu.grad_norms[s]).epsilon(1e-3));
  }
  CHECK(gpu.eval.loss == doctest::Approx(cpu.eval.loss).epsilon(1e-4));
  CHECK(std::abs(gpu.eval.token_accuracy - cpu.eval.token_accuracy) <= 0.01);
}

TEST_CASE("train: a checkpoint written on cuda resumes on cuda exactly and loads on the CPU (GPU)") {
  if (!gpu_available_or_skip()) return;
  TempDir dir("cuda_train_resume");
  train::TrainConfig c = tiny_config("reverse", dir.path() / "run");
  c.dropout = 0.1, c.steps = 6, c.warmup = 2, c.device = "cuda";
  std::vector<double> straight, resumed;
  {
    train::Trainer t(c, {.console = nullptr, .write_files = false});
    t.on_step = [&](const train::StepMetrics& m) { straight.push_back(m.loss); };
    t.fit();
  }
  train::Trainer first(c, {.console = nullptr});
  first.fit(3);
  first.save_checkpoint(first.checkpoint_path());
  train::Trainer second(c, {.console = nullptr, .write_files = false});
  second.resume(first.checkpoint_path());
  second.on_step = [&](const train::StepMetrics& m) { resumed.push_back(m.loss); };
  second.fit();
  REQUIRE(resumed.size() == 3);
  for (size_t s = 0; s < 3; ++s) CHECK(resumed[s] == doctest::Approx(straight[3 + s]).epsilon(1e-6));
  // The checkpoint holds host copies: loading it gives a CPU model whose evaluation matches the GPU's.
  const train::Checkpoint ck = train::load_checkpoint(first.checkpoint_path());
  for (const auto& named : ck.model) CHECK_MESSAGE(named.second.device().is_cpu(), named.first);
  std::unique_ptr<train::TransformerModel> on_cpu = train::load_model(ck);
  const train::EvalMetrics gpu_eval = first.evaluate();
  train::TrainConfig cpu_config = c;
  cpu_config.device = "cpu";
  train::Trainer cpu_trainer(cpu_config, {.console = nullptr, .write_files = false});
  cpu_trainer.model().load_state_dict(on_cpu->state_dict());
  CHECK(cpu_trainer.evaluate().loss == doctest::Approx(gpu_eval.loss).epsilon(1e-4));
}

TEST_CASE("train: generate from a language model that lives on the GPU (GPU)") {
  if (!gpu_available_or_skip()) return;
  TempDir dir("cuda_generate");
  train::TrainConfig c = tiny_config("lm", dir.path());
  c.steps = 3, c.warmup = 1, c.device = "cuda";
  train::Trainer gpu_trainer(c, {.console = nullptr, .write_files = false});
  gpu_trainer.fit();
  c.device = "cpu";
  train::Trainer cpu_trainer(c, {.console = nullptr, .write_files = false});
  cpu_trainer.model().load_state_dict(gpu_trainer.model().state_dict());
  const std::vector<int64_t> prompt = {4, 5, 6};
  const auto on_gpu = train::generate(gpu_trainer.task_as<train::SequenceTask>().model(), prompt, {.max_new_tokens = 5});
  CHECK(on_gpu == train::generate(cpu_trainer.task_as<train::SequenceTask>().model(), prompt, {.max_new_tokens = 5}));
}

TEST_CASE("cli: tapegrad train --device cuda reaches the CPU's accuracy (GPU)") {
  if (!gpu_available_or_skip()) return;
  TempDir dir("cli_cuda");
  auto run = [&](const std::string& device) {
    const auto r = run_cli({"train", "--task", "reverse", "--max-len", "4", "--d-model", "32", "--heads", "2",
                            "--layers", "1", "--ff", "64", "--steps", "60", "--warmup", "10", "--batch-size", "16",
                            "--lr", "0.01", "--eval-every", "0", "--eval-batches", "2", "--val-examples", "64",
                            "--device", device, "--out", (dir.path() / device).string()});
    INFO(device << ": " << r.out << r.err);
    REQUIRE(r.status == 0);
    CHECK(r.out.find(", " + device + ", ") != std::string::npos);
    return validation_of(r.out);
  };
  const auto [cpu_loss, cpu_accuracy] = run("cpu");
  const auto [gpu_loss, gpu_accuracy] = run("cuda");
  const std::string losses = fmt::format("cpu: loss {}, accuracy {}; cuda: loss {}, accuracy {}", cpu_loss,
                                         cpu_accuracy, gpu_loss, gpu_accuracy);  // INFO cannot take structured bindings in clang 14
  INFO(losses);
  CHECK(gpu_loss == doctest::Approx(cpu_loss).epsilon(1e-3));
  CHECK(std::abs(gpu_accuracy - cpu_accuracy) <= 0.02);
  CHECK(gpu_accuracy > 0.3);  // it learned something (chance is about 0.1)
}

TEST_CASE("train: the NaN guard names the op on the GPU too (GPU)") {
  if (!gpu_available_or_skip()) return;
  TempDir dir("cuda_nan");
  train::TrainConfig c = tiny_config("copy", dir.path());
  c.steps = 10, c.warmup = 1, c.device = "cuda";
  train::Trainer t(c, {.console = nullptr, .write_files = false});
  t.fit(2);
  // the row of <sep>, which every copy example holds, becomes NaN (written on the host, copied back)
  Tensor& weight = t.task_as<train::SequenceTask>().model().embedding->weight;
  REQUIRE(weight.is_cuda());
  Tensor host = to_device_copy(weight, kCPU);
  float* w = host.data<float>() + data::kSepId * host.size(1);
  for (int64_t k = 0; k < host.size(1); ++k) w[k] = std::numeric_limits<float>::quiet_NaN();
  {
    NoGradGuard no_grad;
    copy_(weight, host);
  }
  CHECK_THROWS_WITH_AS(t.fit(), doctest::Contains("train: step 3: the loss is nan"), Error);
  CHECK_THROWS_WITH_AS(t.fit(),  // the token embeddings and the positions, one op
                       doctest::Contains("the first op to produce a non-finite value is 'embedding_add_positions'"),
                       Error);
  CHECK(t.step() == 2);
}
