// Exact resume: N steps, a checkpoint, a new Trainer resumed from it and N more steps give the
// same per-step losses, bit for bit, as 2N uninterrupted steps.
#include <nlohmann/json.hpp>

#include "core/output_file_test_util.h"
#include "test_util.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

// The LM task shuffles its windows, and dropout draws from the global generator: both must
// be restored for the losses to match.
train::TrainConfig resume_config(const std::filesystem::path& out) {
  train::TrainConfig c = test::tiny_config("lm", out);
  c.steps = 16, c.warmup = 4, c.dropout = 0.1, c.grad_accum = 2, c.eval_every = 8;
  return c;
}

std::vector<double> log_losses(const std::filesystem::path& log) {
  std::vector<double> out;
  std::istringstream in(test::read_file(log));
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    if (j.at("type") == "train") out.push_back(j.at("loss"));
  }
  return out;
}

}  // namespace

TEST_CASE("resume: 2N steps == N steps + resume + N steps, bit for bit") {
  TempDir whole("resume_whole"), split("resume_split");
  std::vector<double> expected, expected_norms, got, got_norms;

  train::Trainer a(resume_config(whole.path()), {.console = nullptr});
  a.on_step = [&](const train::StepMetrics& m) { expected.push_back(m.loss), expected_norms.push_back(m.grad_norm); };
  const train::FitResult ra = a.fit();

  {
    train::Trainer b(resume_config(split.path()), {.console = nullptr});
    b.on_step = [&](const train::StepMetrics& m) { got.push_back(m.loss), got_norms.push_back(m.grad_norm); };
    b.fit(8);  // writes the checkpoint at step 8
    REQUIRE(b.step() == 8);
  }
  // a crash after the checkpoint left steps 9 and 10 in the log: the resumed run rewrites them
  std::ofstream(split.path() / "metrics.jsonl", std::ios::app) << "{\"type\":\"train\",\"step\":9,\"loss\":1}\n"
                                                                 << "{\"type\":\"train\",\"step\":10,\"loss\":1}\n";
  train::Trainer c(resume_config(split.path()), {.console = nullptr});
  c.resume(split.path());
  CHECK(c.step() == 8);
  c.on_step = [&](const train::StepMetrics& m) { got.push_back(m.loss), got_norms.push_back(m.grad_norm); };
  const train::FitResult rc = c.fit();

  REQUIRE(expected.size() == 16);
  CHECK(got == expected);  // exact equality of doubles
  CHECK(got_norms == expected_norms);
  CHECK(rc.eval.loss == ra.eval.loss);
  CHECK(log_losses(split.path() / "metrics.jsonl") == expected);
  const auto wa = a.model().state_dict(), wc = c.model().state_dict();
  for (size_t i = 0; i < wa.size(); ++i) CHECK(wa[i].second.to_vector<float>() == wc[i].second.to_vector<float>());
}

TEST_CASE("resume: a changed model or optimizer setting is refused, a longer run is allowed") {
  TempDir dir("resume_changed");
  train::TrainConfig config = test::tiny_config("copy", dir.path());
  config.steps = 4, config.warmup = 1;
  train::Trainer(config, {.console = nullptr}).fit();

  train::TrainConfig changed = config;
  changed.lr = 0.1, changed.d_model = 16;
  train::Trainer t(changed, {.console = nullptr});
  CHECK_THROWS_WITH_AS(t.resume(dir.path()), doctest::Contains("differs from the checkpoint's in d_model (checkpoint 32, "
                                                               "now 16), lr (checkpoint 0.01, now 0.1)"),
                       Error);
  CHECK(t.step() == 0);

  train::TrainConfig longer = config;
  longer.steps = 6;
  train::Trainer more(longer, {.console = nullptr});
  more.resume(dir.path() / "checkpoint.safetensors");
  CHECK(more.step() == 4);
  CHECK(more.fit().steps_run == 2);

  train::TrainConfig shorter = config;
  shorter.steps = 3;
  train::Trainer fewer(shorter, {.console = nullptr});
  CHECK_THROWS_WITH_AS(fewer.resume(dir.path()), doctest::Contains("past this run's steps (3)"), Error);
}

TEST_CASE("resume: the metrics log is rewritten through a temporary file, so a failed rewrite leaves it whole") {
  TempDir dir("resume_metrics");
  const std::filesystem::path log = dir.path() / "metrics.jsonl";
  const std::string old = "{\"type\":\"train\",\"step\":1,\"loss\":2}\n{\"type\":\"train\",\"step\":2,\"loss\":1}\n";
  std::ofstream(log) << old;
  {
    test::FileSizeLimit limit(10);  // the disk is "full" past 10 bytes
    train::Reporter reporter(nullptr, 1, 4, 1);
    CHECK_THROWS_WITH_AS(reporter.open_log(log, 1), doctest::Contains((log.string() + ": File too large").c_str()), Error);
  }
  CHECK(test::read_file(log) == old);
  CHECK(test::temporaries_in(dir.path()).empty());

  // A link planted at the log (or at its old temporary name) is replaced, and the lines go to
  // the file renamed into place, never through the link.
  const std::filesystem::path victim = dir.path() / "victim.jsonl";
  std::filesystem::rename(log, victim);
  std::filesystem::create_symlink(victim, log);
  std::filesystem::create_symlink(victim, dir.path() / "metrics.jsonl.tmp");
  train::Reporter reporter(nullptr, 1, 4, 1);
  reporter.open_log(log, 1);
  reporter.step({.step = 2, .loss = 0.5});
  CHECK(test::read_file(log).starts_with("{\"type\":\"train\",\"step\":1,\"loss\":2}\n{\"type\":\"train\",\"step\":2,"));
  CHECK_FALSE(std::filesystem::is_symlink(log));
  CHECK(test::read_file(victim) == old);
  CHECK(test::temporaries_in(dir.path()).empty());
}
