// Checkpoints: a corrupt, truncated or foreign file gives a clear error and is left as it was;
// a save that fails leaves the previous checkpoint intact.
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/trainer.h"
#include "train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

train::TrainConfig short_run(const std::filesystem::path& out) {
  train::TrainConfig c = test::tiny_config("copy", out);
  c.steps = 3, c.warmup = 1;
  return c;
}

void write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

TEST_CASE("checkpoint: truncated, corrupted and foreign files give clear errors and stay untouched") {
  TempDir dir("ckpt_bad");
  train::Trainer(short_run(dir.path()), {.console = nullptr}).fit();
  const std::string good = test::read_file(dir.path() / "checkpoint.safetensors");
  REQUIRE(good.size() > 1000);

  const auto resume_fails = [&](const std::string& bytes, const char* message) {
    const std::filesystem::path bad = dir.path() / "bad.safetensors";
    write(bad, bytes);
    train::Trainer t(short_run(dir.path() / "other"), {.console = nullptr});
    CHECK_THROWS_WITH_AS(t.resume(bad), doctest::Contains(message), Error);
    CHECK_THROWS_WITH_AS(t.resume(bad), doctest::Contains(bad.string().c_str()), Error);
    CHECK(test::read_file(bad) == bytes);  // a failed resume writes nothing
    CHECK(t.step() == 0);
  };
  SUBCASE("truncated") { resume_fails(good.substr(0, good.size() / 2), "not a readable checkpoint"); }
  SUBCASE("header corrupted") {
    std::string bytes = good;
    bytes[8] = '[';  // the JSON header's opening brace
    resume_fails(bytes, "not a readable checkpoint");
  }
  SUBCASE("a safetensors file that is no checkpoint") {
    save_safetensors(dir.path() / "weights.safetensors", {{"w", zeros({2})}});
    resume_fails(test::read_file(dir.path() / "weights.safetensors"), "metadata has no \"format\" entry");
  }
  SUBCASE("missing file") {
    train::Trainer t(short_run(dir.path()), {.console = nullptr});
    CHECK_THROWS_WITH_AS(t.resume(dir.path() / "nope.safetensors"), doctest::Contains("no such file"), Error);
  }
  CHECK(test::read_file(dir.path() / "checkpoint.safetensors") == good);
}

TEST_CASE("checkpoint: a failed save leaves the previous checkpoint as it was") {
  TempDir dir("ckpt_save");
  train::TrainConfig config = short_run(dir.path());
  config.steps = 6;
  train::Trainer t(config, {.console = nullptr});
  t.fit(3);
  const std::filesystem::path path = dir.path() / "checkpoint.safetensors";
  const std::string before = test::read_file(path);
  // the temporary file cannot be created: a non-empty directory stands in its way
  std::filesystem::create_directories(dir.path() / "checkpoint.safetensors.tmp" / "blocker");
  CHECK_THROWS_WITH_AS(t.fit(), doctest::Contains("save_safetensors"), Error);
  CHECK(test::read_file(path) == before);
  CHECK(train::load_checkpoint(path).step == 3);
}

TEST_CASE("checkpoint: save and load round trip") {
  TempDir dir("ckpt_round");
  train::Trainer t(short_run(dir.path()), {.console = nullptr});
  t.fit();
  const train::Checkpoint c = train::load_checkpoint(train::checkpoint_file(dir.path()));  // a run directory works
  CHECK(c.step == 3);
  CHECK(c.config == t.config());
  CHECK(c.model_config == t.model().config);
  CHECK(c.input_vocab == t.data().input_vocab);
  CHECK(c.output_vocab == t.data().output_vocab);
  CHECK(c.scheduler.size() == 1);
  CHECK(c.optimizer.size() == t.optimizer().state_dict().size());
  auto model = train::load_model(c);
  const auto mine = t.model().state_dict(), loaded = model->state_dict();
  REQUIRE(mine.size() == loaded.size());
  for (size_t i = 0; i < mine.size(); ++i) {
    CHECK(mine[i].first == loaded[i].first);
    CHECK(mine[i].second.to_vector<float>() == loaded[i].second.to_vector<float>());
  }
  CHECK_FALSE(model->is_training());
}
