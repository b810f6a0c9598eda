// The Trainer on 2 ranks (dist::TrainerParallel) against one process with the same global batch.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "dist/trainer_parallel.h"
#include "train/train_test_util.h"
#include "train/trainer.h"

namespace tg {

namespace {

struct Run {
  std::vector<double> losses;
  std::vector<float> parameters;  // after the last step, in order, but for the key projections' biases
  train::EvalMetrics eval;
};

Run train_run(const train::TrainConfig& config, const std::shared_ptr<train::DataParallel>& parallel,
              const std::function<void(int64_t step)>& after_step = nullptr) {
  train::Trainer trainer(config, {.console = nullptr, .write_files = false, .parallel = parallel});
  Run run;
  trainer.on_step = [&](const train::StepMetrics& m) {
    run.losses.push_back(m.loss);
    if (after_step) after_step(m.step);
  };
  run.eval = trainer.fit().eval;
  for (auto& [name, t] : trainer.model().named_parameters())
    if (!name.ends_with("k_proj.bias"))  // see the first test case
      for (float v : t.to_vector<float>()) run.parameters.push_back(v);
  return run;
}

double largest_gap(const auto& a, const auto& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(static_cast<double>(a[i]) - b[i]));
  return d;
}

}  // namespace

// The summation order differs (each rank sums its rows, then MPI sums the ranks), so the
// losses agree to float tolerance, not bit for bit; the largest difference is printed. The key
// projections' biases are not compared: their gradient is zero in exact arithmetic (a key bias
// adds the same amount to every score of a row, which softmax ignores), so AdamW, which divides
// a gradient by its own size, moves them by rounding noise, differently for each summation order.
TEST_CASE("Trainer on 2 ranks: the losses, parameters and accuracy of one process with the same global batch") {
  test::TempDir dir("dist_trainer");
  train::TrainConfig config = test::tiny_config("reverse", dir.path());
  config.steps = 50, config.batch_size = 7, config.dropout = 0;  // 7: rows 0-2 on rank 0, 3-6 on rank 1
  const Run one = train_run(config, nullptr);

  auto parallel = std::make_shared<dist::TrainerParallel>();
  int64_t checked = 0;
  const Run two = train_run(config, parallel, [&](int64_t step) {
    parallel->check_parameters_agree(fmt::format("after step {}", step));  // throws unless identical on both ranks
    ++checked;
  });
  CHECK(checked == 50);
  REQUIRE(two.losses.size() == 50);
  const double loss_diff = largest_gap(one.losses, two.losses);
  const double param_diff = largest_gap(one.parameters, two.parameters);
  MESSAGE("largest loss difference over 50 steps: " << loss_diff << ", largest parameter difference: " << param_diff);
  CHECK(loss_diff < 1e-5);
  CHECK(param_diff < 1e-5);
  CHECK(two.eval.token_accuracy == doctest::Approx(one.eval.token_accuracy).epsilon(1e-3));
  CHECK(two.eval.exact_match == doctest::Approx(one.eval.exact_match).epsilon(1e-3));
  CHECK(two.eval.loss == doctest::Approx(one.eval.loss).epsilon(1e-4));
  CHECK(two.eval.sequences == one.eval.sequences);
}

// The same for arch seq2seq: every rank takes its rows of the global batch of pairs, padded to the
// batch's longest pair as one process pads them.
TEST_CASE("Trainer on 2 ranks: a seq2seq run's losses and parameters are one process's") {
  test::TempDir dir("dist_seq2seq");
  train::TrainConfig config = train::seq2seq_defaults();
  config.d_model = 16, config.heads = 2, config.layers = 1, config.ff = 32, config.dropout = 0;
  config.steps = 20, config.batch_size = 7, config.warmup = 2, config.val_examples = 8;
  config.out = dir.str();
  const Run one = train_run(config, nullptr);
  const Run two = train_run(config, std::make_shared<dist::TrainerParallel>());
  REQUIRE(two.losses.size() == 20);
  const double loss_diff = largest_gap(one.losses, two.losses);
  const double param_diff = largest_gap(one.parameters, two.parameters);
  MESSAGE("seq2seq: largest loss difference over 20 steps: " << loss_diff << ", largest parameter difference: "
                                                               << param_diff);
  CHECK(loss_diff < 1e-5);
  CHECK(param_diff < 1e-5);
  CHECK(two.eval.exact_match == one.eval.exact_match);
  CHECK(two.eval.sequences == one.eval.sequences);
}

TEST_CASE("Trainer on 2 ranks: dropout draws per rank, reproducible, gradient accumulation") {
  test::TempDir dir("dist_dropout");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 6, config.warmup = 2, config.batch_size = 4, config.grad_accum = 2, config.dropout = 0.2;
  const Run a = train_run(config, std::make_shared<dist::TrainerParallel>());
  const Run b = train_run(config, std::make_shared<dist::TrainerParallel>());
  CHECK(a.losses == b.losses);
  CHECK(a.parameters == b.parameters);
  config.dropout = 0;
  const Run one = train_run(config, nullptr), two = train_run(config, std::make_shared<dist::TrainerParallel>());
  CHECK(largest_gap(one.losses, two.losses) < 1e-5);
}

// The loader's position counts global batches, whatever the number of ranks: a checkpoint of
// a 2-rank run resumes on 2 ranks and on one process alike.
TEST_CASE("Trainer on 2 ranks: a checkpoint resumes on 2 ranks and on one process") {
  std::vector<double> pid = {static_cast<double>(getpid())};
  dist::broadcast(pid);  // rank 0's: one directory for both ranks
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("tg_dist_resume_{}", pid[0]);
  train::TrainConfig config = test::tiny_config("reverse", dir);
  config.steps = 20, config.batch_size = 6, config.dropout = 0;
  const Run whole = train_run(config, nullptr);

  {
    train::Trainer first(config, {.console = nullptr, .write_files = dist::rank() == 0,
                                  .parallel = std::make_shared<dist::TrainerParallel>()});
    first.fit(10);  // rank 0 writes the checkpoint at the end
  }
  dist::barrier();
  const auto resumed_losses = [&](const std::shared_ptr<train::DataParallel>& parallel) {
    train::Trainer trainer(config, {.console = nullptr, .write_files = false, .parallel = parallel});
    trainer.resume(dir);
    std::vector<double> losses;
    trainer.on_step = [&](const train::StepMetrics& m) { losses.push_back(m.loss); };
    trainer.fit();
    return losses;
  };
  const std::vector<double> tail(whole.losses.begin() + 10, whole.losses.end());
  const std::vector<double> two = resumed_losses(std::make_shared<dist::TrainerParallel>());
  const std::vector<double> one = resumed_losses(nullptr);
  REQUIRE(two.size() == 10);
  REQUIRE(one.size() == 10);
  CHECK(largest_gap(tail, two) < 1e-5);
  CHECK(largest_gap(tail, one) < 1e-5);
  dist::barrier();
  if (dist::rank() == 0) std::filesystem::remove_all(dir);
}

TEST_CASE("Trainer on 2 ranks: a global batch smaller than the ranks is refused") {
  test::TempDir dir("dist_small_batch");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.batch_size = 1;
  CHECK_THROWS_WITH_AS(train::Trainer(config, {.console = nullptr, .write_files = false,
                                               .parallel = std::make_shared<dist::TrainerParallel>()}),
                       "train: --batch-size 1 is split across 2 ranks: it must be at least the number of ranks",
                       Error);
}

}  // namespace tg
