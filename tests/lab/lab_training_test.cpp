// The lab's training (lab/lab_training.h): tapegrad train's flags as the page gives them, and a
// run driven an update at a time whose looks back (snapshots, tapes) change nothing it trains.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lab/lab_training.h"
#include "tapegrad.h"

namespace tg::test {

namespace {

using nlohmann::json;

const json kTinyLabRun = {{"task", "reverse"}, {"steps", 12}, {"batch-size", 8}, {"d-model", 16}, {"heads", 2},
                    {"layers", 1}, {"ff", 32}, {"max-len", 5}, {"val-examples", 16}, {"seed", 3}};

// The first attention's query weight, (d_model, d_model), as describe() names it.
std::string query_weight(lab::LabTraining& lab) {
  const json described = lab.describe();
  for (const json& p : described.at("parameters"))
    if (p.at("name").get<std::string>().ends_with("q_proj.weight")) return p.at("name");
  FAIL("the model has no q_proj.weight");
  return "";
}

std::vector<double> record_losses(const json& records) {
  std::vector<double> out;
  for (const json& r : records) out.push_back(r.at("loss").get<double>());
  return out;
}

}  // namespace

TEST_CASE("lab training: the page's flags are tapegrad train's, with its defaults") {
  const train::TrainConfig c = lab::config_from_flags({{"d-model", 16}, {"steps", 30}, {"batch-size", 8}});
  CHECK(c.d_model == 16);
  CHECK(c.steps == 30);
  CHECK(c.batch_size == 8);
  CHECK(c.warmup == 3);  // train's default warmup, scaled to a short run: min(50, 30 / 10)
  CHECK(c.task == "reverse");
  CHECK(lab::config_from_flags({{"steps", 30}, {"warmup", 7}}).warmup == 7);
  CHECK(lab::config_from_flags({{"arch", "gpt"}, {"task", "lm"}}).arch == "gpt");
}

TEST_CASE("lab training: flags the page cannot take are errors naming them") {
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"data", "book.txt"}}), doctest::Contains("--data is not for the page"),
                       Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"device", "cuda"}}), doctest::Contains("--device"), Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"threads", 2}}), doctest::Contains("no flag --threads"), Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"arch", "seq2seq"}}), doctest::Contains("does not train in the page"),
                       Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"task", "file"}}), doctest::Contains("--task file"), Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"d-model", 0}}), doctest::Contains("d_model"), Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags({{"d-model", "16"}}), doctest::Contains("d_model"), Error);
  CHECK_THROWS_WITH_AS(lab::config_from_flags(json::array()), doctest::Contains("object"), Error);
}

TEST_CASE("lab training: its updates are the Trainer's, and stop at the run's end") {
  lab::LabTraining lab(kTinyLabRun);
  const json first = lab.updates(5), rest = lab.updates(100);
  CHECK(first.size() == 5);
  CHECK(rest.size() == 7);  // 12 steps in all
  CHECK(rest.back().at("step") == 12);
  CHECK(lab.updates(1).empty());

  train::Trainer trainer(lab::config_from_flags(kTinyLabRun), {.console = nullptr, .write_files = false});
  std::vector<double> expected;
  trainer.on_step = [&](const train::StepMetrics& m) { expected.push_back(m.loss); };
  trainer.fit();
  std::vector<double> got = record_losses(first);
  for (double loss : record_losses(rest)) got.push_back(loss);
  CHECK(got == expected);
  CHECK_THROWS_WITH_AS(trainer.update(), doctest::Contains("all its 12 steps"), Error);
}

TEST_CASE("lab training: looking back at kept steps changes nothing it trains") {
  lab::LabTraining straight(kTinyLabRun), looked_at(kTinyLabRun);
  const std::string wq = query_weight(looked_at);
  const json step0 = looked_at.snapshot(0, wq);
  json records = looked_at.updates(6);
  looked_at.keep();
  const json step6 = looked_at.snapshot(6);
  const json tape0 = looked_at.record(0);
  const json again0 = looked_at.snapshot(0, wq);
  for (const json& r : looked_at.updates(6)) records.push_back(r);
  CHECK(record_losses(records) == record_losses(straight.updates(12)));

  // Step 0 seen again after training: the weights it kept, exactly.
  CHECK(again0 == step0);
  CHECK(step6.at("loss").get<double>() != step0.at("loss").get<double>());
  // The tape records the same example through the same weights, on the composed path.
  CHECK(tape0.at("loss").get<double>() == doctest::Approx(step0.at("loss").get<double>()).epsilon(1e-5));
  CHECK(tape0.at("step") == 0);
  CHECK(!tape0.at("entries").empty());

  const json& g = step0.at("gradient");
  CHECK(g.at("shape") == json::array({16, 16}));
  CHECK(g.at("values").size() == 256);
  const json& a = step0.at("attention");
  const size_t T = step0.at("tokens").size();
  CHECK(a.at("heads") == 2);
  CHECK(a.at("layers").size() == 1);
  CHECK(a.at("layers")[0].size() == 2 * T * T);
  const json& prediction = step0.at("prediction");
  REQUIRE(prediction.size() == T);
  int scored = 0;
  for (const json& p : prediction) {
    CHECK(p.at("p_predicted").get<double>() > 0);
    if (p.at("target").is_null()) continue;
    ++scored;
    CHECK(p.at("p_target").get<double>() <= p.at("p_predicted").get<double>());
  }
  CHECK(scored > 0);
  // The recording's, through the same weights on the composed path: equal to float tolerance.
  for (size_t t = 0; t < T; ++t) {
    const json &a = tape0.at("prediction")[t], &b = prediction[t];
    CHECK(a.at("predicted") == b.at("predicted"));
    CHECK(a.at("p_predicted").get<double>() == doctest::Approx(b.at("p_predicted").get<double>()).epsilon(1e-4));
  }
}

TEST_CASE("lab training: a step neither kept nor reached, or an unknown parameter, is an error") {
  lab::LabTraining lab(kTinyLabRun);
  lab.updates(3);
  CHECK_THROWS_WITH_AS(lab.snapshot(2), doctest::Contains("the weights of step 2 are not kept (kept: 0)"), Error);
  CHECK_THROWS_WITH_AS(lab.record(7), doctest::Contains("step 7"), Error);
  CHECK_THROWS_WITH_AS(lab.snapshot(3, "no.such.weight"), doctest::Contains("no parameter named 'no.such.weight'"),
                       Error);
  // After the error the run goes on as before.
  CHECK(lab.updates(1).at(0).at("step") == 4);
}

}  // namespace tg::test
