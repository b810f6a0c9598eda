// Numerics versions (core/numerics.h): a run's config fixes the version its float32 arithmetic
// rounds with; a model's forward, the gradients recorded in it and a checkpointed layer's
// recomputation all round in it, and a resumed run keeps it.
#include <nlohmann/json.hpp>

#include "core/checkpoint.h"
#include "core/numerics.h"
#include "ops/gelu/gelu.h"
#include "ops/sum/sum.h"
#include "test_util.h"
#include "train/checkpoint.h"
#include "train/config.h"
#include "train/model.h"
#include "train_test_util.h"

using namespace tg;

TEST_CASE("numerics: a guard sets this thread's version for its scope and refuses one that does not exist") {
  CHECK(numerics() == kLatestNumerics);
  {
    const NumericsGuard v1(1);
    CHECK(numerics() == 1);
    {
      const NumericsGuard v2(2);
      CHECK(numerics() == 2);
    }
    CHECK(numerics() == 1);
  }
  CHECK(numerics() == kLatestNumerics);
  for (int64_t version : {int64_t{0}, kLatestNumerics + 1})
    CHECK_THROWS_WITH_AS(NumericsGuard{version},
                         doctest::Contains(fmt::format("numerics: the version must be in [1, {}], got {}",
                                                       kLatestNumerics, version).c_str()),
                         Error);
  CHECK(numerics() == kLatestNumerics);
}

TEST_CASE("numerics: a config stores its version unless 1, and one written without it is version 1") {
  train::TrainConfig c;
  CHECK(c.numerics == kLatestNumerics);  // a fresh run takes the latest
  CHECK(nlohmann::json::parse(train::to_json(c)).at("numerics") == kLatestNumerics);
  CHECK(train::config_from_json(train::to_json(c)) == c);

  nlohmann::json older = nlohmann::json::parse(train::to_json(c));
  older.erase("numerics");
  CHECK(train::config_from_json(older.dump()).numerics == 1);
  c.numerics = 1;
  CHECK_FALSE(nlohmann::json::parse(train::to_json(c)).contains("numerics"));
  CHECK(train::config_from_json(train::to_json(c)) == c);

  c.numerics = kLatestNumerics + 1;
  CHECK_THROWS_WITH_AS(train::validate(c), doctest::Contains("numerics must be in [1, "), Error);
  older["numerics"] = "2";
  CHECK_THROWS_WITH_AS(train::config_from_json(older.dump()), doctest::Contains("numerics"), Error);
}

TEST_CASE("numerics: a gpt model's forward rounds in its config's version, and a checkpointed layer recomputes in it") {
  const Tensor inputs = tensor_i64({3, 4, 5, 6, 7, 2, 8, 9, 0, 1, 5, 5, 6, 7, 8, 9}, {2, 8});
  // The loss and the gradients of a model of `version`, its layers checkpointed or not, with the
  // backward run outside any guard (in the latest version).
  const auto step = [&](int64_t version, bool checkpointed) {
    manual_seed(3);
    train::TransformerModel model({.vocab_size = 12, .num_classes = 12, .max_len = 8, .d_model = 32, .heads = 2,
                                   .layers = 2, .ff = 64, .dropout = 0.1, .causal = true, .arch = "gpt",
                                   .numerics = version});
    model.set_checkpoint_activations(checkpointed);
    tape().clear();
    const Tensor loss = sum(model.forward(inputs));
    loss.backward();
    std::vector<float> values = loss.to_vector<float>();
    for (const auto& [name, p] : model.named_parameters()) {
      const std::vector<float> g = p.grad().to_vector<float>();
      values.insert(values.end(), g.begin(), g.end());
    }
    return values;
  };
  const std::vector<float> v1 = step(1, false), v2 = step(2, false), v3 = step(3, false);
  CHECK(v1 != v2);  // gelu's erf rounds differently
  CHECK(v2 != v3);  // dropout draws 16 bits
  CHECK(step(1, false) == v1);
  CHECK(step(1, true) == v1);  // the recomputation in the backward rounds and draws as the forward did
  CHECK(step(2, true) == v2);
  CHECK(step(3, true) == v3);
  CHECK(numerics() == kLatestNumerics);  // the forward's guard ended with it
  CHECK_THROWS_WITH_AS(train::TransformerModel({.vocab_size = 4, .num_classes = 4, .max_len = 4, .numerics = 0}),
                       doctest::Contains("numerics must be in [1, "), Error);
}

TEST_CASE("cli: train --numerics 1 keeps a gpt run in version 1, --resume keeps it and refuses another") {
  test::TempDir dir("cli_numerics");
  const std::string corpus = (dir.path() / "corpus.txt").string();
  data::write_grammar_corpus(corpus, 300);
  const auto train = [&](const std::string& out, const std::vector<std::string>& extra) {
    return test::run_cli(test::tiny_gpt_run(corpus, out, extra));
  };
  const auto checkpoint = [](const std::string& out) {
    return train::load_checkpoint(train::checkpoint_file(out));
  };
  const std::string latest = (dir.path() / "latest").string(), first = (dir.path() / "first").string();
  auto r = train(latest, {});
  INFO(r.err);
  REQUIRE(r.status == 0);
  CHECK(checkpoint(latest).config.numerics == kLatestNumerics);
  CHECK(checkpoint(latest).model_config.numerics == kLatestNumerics);

  CHECK_FALSE(test::has(r.out, "numerics version"));
  r = train(first, {"--numerics", "1"});
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, fmt::format("float32 arithmetic of numerics version 1 (--numerics; the latest is {})",
                                     kLatestNumerics)));
  CHECK(checkpoint(first).config.numerics == 1);
  CHECK(checkpoint(first).model_config.numerics == 1);
  // The same run in the two versions: the same data and initial weights, other roundings.
  CHECK(checkpoint(first).model.at(0).second.to_vector<float>() !=
        checkpoint(latest).model.at(0).second.to_vector<float>());

  r = test::run_cli({"train", "--resume", first, "--steps", "+2"});
  REQUIRE(r.status == 0);
  CHECK(test::has(r.out, "numerics version 1"));
  CHECK(checkpoint(first).step == 5);
  CHECK(checkpoint(first).config.numerics == 1);

  r = test::run_cli({"train", "--resume", first, "--steps", "+2", "--numerics", "2"});
  CHECK(r.status != 0);
  CHECK(test::has(r.err, "differs from the checkpoint's in numerics (checkpoint 1, now 2)"));
  r = train((dir.path() / "none").string(), {"--numerics", std::to_string(kLatestNumerics + 1)});
  CHECK(r.status != 0);
  CHECK(test::has(r.err, "--numerics"));
}
