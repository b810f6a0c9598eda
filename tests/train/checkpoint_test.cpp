// Checkpoints: a corrupt, truncated or foreign file gives a clear error and is left as it was;
// a save that fails leaves the previous checkpoint intact.
#include <functional>

#include <nlohmann/json.hpp>

#include "core/output_file_test_util.h"
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

}  // namespace

TEST_CASE("checkpoint: truncated, corrupted and foreign files give clear errors and stay untouched") {
  TempDir dir("ckpt_bad");
  train::Trainer(short_run(dir.path()), {.console = nullptr}).fit();
  const std::string good = test::read_file(dir.path() / "checkpoint.safetensors");
  REQUIRE(good.size() > 1000);

  const auto resume_fails = [&](const std::string& bytes, const char* message) {
    const std::filesystem::path bad = dir.path() / "bad.safetensors";
    test::write_file(bad, bytes);
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
  SUBCASE("a checkpoint without its config, named once in the message") {
    SafetensorsFile f = load_safetensors(dir.path() / "checkpoint.safetensors");
    f.metadata.erase("config");
    save_safetensors(dir.path() / "no_config.safetensors", f.tensors, f.metadata);
    const std::filesystem::path bad = dir.path() / "no_config.safetensors";
    CHECK_THROWS_WITH_AS(train::load_checkpoint(bad),
                         ("checkpoint: " + bad.string() + ": metadata has no \"config\" entry").c_str(), Error);
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
  {
    test::FileSizeLimit limit(4096);  // the disk is "full" past 4 KiB
    const std::string message = "save_safetensors: cannot write " + path.string() + ": File too large";
    CHECK_THROWS_WITH_AS(t.save_checkpoint(path), doctest::Contains(message.c_str()), Error);
  }
  CHECK(test::temporaries_in(dir.path()).empty());
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
  CHECK(c.model_config == t.task().model_config());
  CHECK(c.input_vocab == t.task().input_vocab());
  CHECK(c.output_vocab == t.task().output_vocab());
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

namespace {

// A copy of `good` with some entries changed: `edit` gets the tensors and the metadata.
std::filesystem::path edited(const std::filesystem::path& good, const std::string& name,
                             const std::function<void(NamedTensors&, SafetensorsMetadata&)>& edit) {
  SafetensorsFile f = load_safetensors(good);
  edit(f.tensors, f.metadata);
  const std::filesystem::path path = good.parent_path() / (name + ".safetensors");
  save_safetensors(path, f.tensors, f.metadata);
  return path;
}

void set_i64(NamedTensors& tensors, const std::string& name, int64_t value) {
  for (auto& [key, t] : tensors)
    if (key == name) t.data<int64_t>()[0] = value;
}

// A JSON metadata entry with one field replaced.
void set_json(SafetensorsMetadata& meta, const std::string& entry, const std::string& field, nlohmann::json value) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(meta.at(entry));
  j[field] = std::move(value);
  meta[entry] = j.dump();
}

}  // namespace

TEST_CASE("checkpoint: every number and the model it describes are checked before anything is built") {
  TempDir dir("ckpt_fields");
  train::Trainer(short_run(dir.path()), {.console = nullptr}).fit();  // 3 steps, copy task, d_model 32
  const std::filesystem::path good = dir.path() / "checkpoint.safetensors";
  struct Case {
    const char* name;
    std::function<void(NamedTensors&, SafetensorsMetadata&)> edit;
    std::string message;
  };
  const auto first_input_token = [&] {
    return nlohmann::json::parse(load_safetensors(good).metadata.at("input_vocab")).at(0).get<std::string>();
  };
  const Case cases[] = {
      {"step_negative", [](auto& t, auto&) { set_i64(t, "trainer.step", -5); },
       "trainer.step must be in [0, steps = 3], got -5"},
      {"step_past_end", [](auto& t, auto&) { set_i64(t, "trainer.step", 7); },
       "trainer.step must be in [0, steps = 3], got 7"},
      {"scheduler", [](auto& t, auto&) { set_i64(t, "scheduler.step", 2); },
       "the scheduler's state must be one scheduler.step equal to trainer.step (3)"},
      {"loader", [](auto& t, auto&) { set_i64(t, "loader.epoch", int64_t{1} << 40); },
       "loader.epoch and loader.batch must be in [0, 3] after 3 steps of 1 batches, got 1099511627776 and 0"},
      {"rng_seed", [](auto& t, auto&) { set_i64(t, "rng.seed", 5); }, "rng.seed must be the config's seed (0), got 5"},
      {"rng_offset", [](auto& t, auto&) { set_i64(t, "rng.offset", -1); }, "rng.offset must be >= 0, got -1"},
      {"config_field", [](auto&, auto& m) { set_json(m, "config", "d_model", 1000000000); },
       "config: d_model must be in [1, 16384], got 1000000000"},
      {"config_lr", [](auto&, auto& m) { set_json(m, "config", "lr", -1); },
       "lr must be a finite number > 0, got -1"},
      {"model_field", [](auto&, auto& m) { set_json(m, "model", "d_model", 4096); },
       "the model metadata does not match: d_model is 4096 but the config gives 32"},
      {"model_max_len", [](auto&, auto& m) { set_json(m, "model", "max_len", 99); },
       "max_len is 99 but task copy gives"},
      {"model_huge", [](auto&, auto& m) { set_json(m, "model", "vocab_size", int64_t{1} << 40); },
       "vocab_size must be in [1, 16777216], got 1099511627776"},
      {"model_and_config", [](auto&, auto& m) { set_json(m, "model", "d_model", 4096), set_json(m, "config", "d_model",
                                                                                                4096); },
       "embedding.weight should be (15,4096) for the described model, got (15,32)"},
      {"model_layers", [](auto&, auto& m) { set_json(m, "model", "layers", 1000), set_json(m, "config", "layers", 1000); },
       "layers, ff 64, vocabulary 15, 15 classes) has"},
      {"vocab_repeat", [&](auto&, auto& m) {
         auto tokens = nlohmann::json::parse(m.at("input_vocab"));
         tokens.push_back(first_input_token());
         m["input_vocab"] = tokens.dump();
       },
       "input_vocab entry 10 repeats the token \"" + first_input_token() + "\" (id 5)"},
      {"vocab_longer", [](auto&, auto& m) {
         auto tokens = nlohmann::json::parse(m.at("output_vocab"));
         tokens.push_back("extra");
         m["output_vocab"] = tokens.dump();
       },
       "num_classes is 15 but output_vocab gives 16"},
      {"vocab_not_strings", [](auto&, auto& m) { m["input_vocab"] = "[1, 2]"; },
       "input_vocab should be a JSON array of strings"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::filesystem::path bad = edited(good, c.name, c.edit);
    CHECK_THROWS_WITH_AS(train::load_checkpoint(bad), doctest::Contains(c.message.c_str()), Error);
    CHECK_THROWS_WITH_AS(train::load_checkpoint(bad), doctest::Contains(bad.string().c_str()), Error);
  }
}

TEST_CASE("checkpoint: resume checks the loader's position and the generator against the run") {
  TempDir dir("ckpt_resume_fields");
  train::Trainer(short_run(dir.path()), {.console = nullptr}).fit();
  const std::filesystem::path good = dir.path() / "checkpoint.safetensors";
  const auto resume_fails = [&](const std::filesystem::path& bad, const char* message) {
    train::Trainer t(short_run(dir.path() / "other"), {.console = nullptr});
    CHECK_THROWS_WITH_AS(t.resume(bad), doctest::Contains(message), Error);
    CHECK(t.step() == 0);
  };
  // 3 steps of one 16-example batch over 48 examples: the loader ends at epoch 1, batch 0
  resume_fails(edited(good, "loader_batch", [](auto& t, auto&) { set_i64(t, "loader.epoch", 0), set_i64(t, "loader.batch", 2); }),
               "the loader is at epoch 0, batch 2, but 3 steps of 1 batches end at epoch 1, batch 0 (3 batches an epoch)");
  resume_fails(edited(good, "rng_early", [](auto& t, auto&) { set_i64(t, "rng.offset", 0); }),
               "rng.offset is 0, before the");
}
