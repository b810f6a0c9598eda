// A student's edits to a lesson's inputs and settings (lessons/lesson.h: LessonLog::input and
// setting, run_lesson's edits), as `tapegrad explore --lesson NAME --set` and the lab (lab/) apply them.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "explore/lesson_log.h"
#include "lessons/lesson.h"
#include "lessons/values.h"
#include "tapegrad.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {

using lessons::LessonEdit;

nlohmann::json record(const std::string& name, std::vector<LessonEdit> edits = {}) {
  return explore::record_lesson(*lessons::find_lesson(name), std::move(edits));
}

// The recorded values of the tensor the lesson named `name` (a parameter or constant).
std::vector<double> recorded(const nlohmann::json& rec, const std::string& name) {
  for (const auto& [id, t] : rec["tensors"].items())
    if (t["name"] == name && t["kind"] != "gradient" && t["kind"] != "saved") {
      std::vector<double> out;
      for (const auto& v : t["value"]["values"])  // "-Infinity" and the like as strings
        out.push_back(v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>());
      return out;
    }
  FAIL("no tensor named " << name);
  return {};
}

// Keeps the tensors a lesson shows and the value of its loss, exactly.
struct ExactLog : lessons::LessonLog {
  std::map<std::string, std::vector<double>> shown;
  double loss = 0;
  void say(std::string_view) override {}
  void show(std::string_view name, const Tensor& t) override { shown[std::string(name)] = lessons::values(t); }
  void fact(std::string_view, bool) override {}
  void backward_from(const Tensor& l) override {
    loss = l.item();
    l.backward();
  }
};

// The recorded facts of a lesson, statement -> holds.
std::map<std::string, bool> facts(const nlohmann::json& rec) {
  std::map<std::string, bool> out;
  for (const auto& step : rec["lesson"])
    if (step.contains("fact")) out[step["fact"]] = step["holds"];
  return out;
}

ExactLog run_exactly(std::vector<LessonEdit> edits) {
  ExactLog log;
  lessons::run_lesson(*lessons::find_lesson("attention_head"), log, std::move(edits));
  return log;
}

}  // namespace

TEST_CASE("lesson edits: TENSOR[INDEX]=VALUE is read whole, and anything else is refused naming the text") {
  const LessonEdit edit = lessons::parse_lesson_edit("x[3]=0.5");
  CHECK(edit.name == "x");
  CHECK(edit.index == 3);
  CHECK(edit.value == 0.5);
  CHECK(lessons::parse_lesson_edit("q k^T[12]=-2e3").name == "q k^T");
  const LessonEdit setting = lessons::parse_lesson_edit("d_k=2");
  CHECK(setting.name == "d_k");
  CHECK(!setting.index);
  CHECK(setting.value == 2);
  CHECK(lessons::parse_lesson_edit("fill=-inf").value == -INFINITY);
  CHECK(lessons::parse_lesson_edit("scores[0]=-inf").value == -INFINITY);
  CHECK(lessons::parse_lesson_edit("scores[0]=inf").value == INFINITY);
  CHECK(std::isnan(lessons::parse_lesson_edit("scores[0]=nan").value));
  for (const std::string bad : {"x", "=1", "[0]=1", "x[0]", "x[-1]=1", "d_k=two", "x[a]=1", "x[]=1", "x[0]=",
                                "x[0]=abc", "x[0]=1e999", "x[0]=0.5x", "x[99999999999999999999]=1"}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(lessons::parse_lesson_edit(bad), doctest::Contains(("--set '" + bad + "'").c_str()), Error);
    CHECK_THROWS_WITH_AS(lessons::parse_lesson_edit(bad), doctest::Contains("TENSOR[INDEX]=VALUE or SETTING=VALUE"),
                         Error);
  }
}

TEST_CASE("lesson edits: an edit changes that element before the lesson reads it, and its own value nothing") {
  const nlohmann::json plain = record("attention_head");
  std::vector<std::string> inputs;
  for (const auto& input : plain["inputs"]) inputs.push_back(input["name"]);
  CHECK(inputs == std::vector<std::string>{"tokens", "E", "Wq", "Wk", "Wv"});
  const int64_t E_id = plain["entries"][0]["inputs"][1]["tensor"];  // embedding(tokens, E)
  CHECK(plain["inputs"][1]["value"] == plain["tensors"][std::to_string(E_id)]["value"]);
  std::vector<double> E = recorded(plain, "E");
  REQUIRE(E.size() == 36);  // (V, C) = (9, 4)

  // The element's own value again: the same loss to the bit (an edit is a copy, not a perturbation).
  const ExactLog exact = run_exactly({});
  CHECK(run_exactly({{"Wq", 3, exact.shown.at("Wq")[3]}}).loss == exact.loss);

  const nlohmann::json edited = record("attention_head", {{"E", 7, 0.5}, {"Wq", 0, -1.25}});  // E[1, 3]: "the"
  std::vector<double> edited_E = recorded(edited, "E");
  CHECK(edited_E[7] == 0.5);
  edited_E[7] = E[7];
  CHECK(edited_E == E);
  CHECK(recorded(edited, "Wq")[0] == -1.25);
  CHECK(edited["loss"].get<double>() != plain["loss"].get<double>());
  // Wq and E stay parameters: their gradients are still recorded.
  CHECK(edited["leaf_grads"].size() == plain["leaf_grads"].size());
}

TEST_CASE("lesson edits: the tokens are ids into the lesson's vocabulary, and a <pad> anywhere is masked as padding") {
  const nlohmann::json plain = record("attention_head");
  const nlohmann::json& tokens = plain["inputs"][0];
  REQUIRE(tokens["name"] == "tokens");
  const std::vector<std::string> vocabulary = tokens["vocabulary"];
  REQUIRE(vocabulary.size() == 9);
  CHECK(vocabulary[0] == "<pad>");
  CHECK(recorded(plain, "tokens") == std::vector<double>{1, 2, 3, 0});  // "the cat sat <pad>"
  CHECK(plain["attention"][0]["keys"] == nlohmann::json({"the", "cat", "sat", "<pad>"}));

  // "the <pad> sat <pad>": key 1 is masked too, so query 1 and query 2 see only "the" and "sat".
  const nlohmann::json padded = record("attention_head", {{"tokens", 1, 0}});
  CHECK(padded["attention"][0]["queries"] == nlohmann::json({"the", "<pad>", "sat", "<pad>"}));
  std::vector<double> weights = recorded(padded, "weights");
  REQUIRE(weights.size() == 16);
  CHECK(weights[1 * 4 + 1] == 0);
  CHECK(weights[2 * 4 + 1] == 0);
  CHECK(weights[2 * 4 + 0] + weights[2 * 4 + 2] == doctest::Approx(1));
  for (const auto& fact : facts(padded)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
    CAPTURE(fact.first);
    CHECK(fact.second);
  }
  CHECK(facts(padded).at("masked keys get weight exactly 0 (the causal upper triangle and each <pad> column)"));

  // A changed token changes the loss; "dog" for "cat" reads another row of E.
  CHECK(record("attention_head", {{"tokens", 1, 7}})["loss"].get<double>() != plain["loss"].get<double>());
  CHECK_THROWS_WITH_AS((record("attention_head", {{"tokens", 2, 9}})),
                       "lesson: tokens[2] = 9: tokens holds ids into a vocabulary of 9 tokens (0 <pad>, 1 the, 2 cat, "
                       "3 sat, 4 on, 5 warm, 6 mat, 7 dog, 8 ran), so an id lies in 0 to 8",
                       Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"tokens", 0, -1}})), doctest::Contains("an id lies in 0 to 8"),
                       Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"tokens", 0, 1.5}})), doctest::Contains("a whole number"), Error);
}

TEST_CASE("lesson edits: a module's parameter is changed in place, and the module computes with it") {
  const nlohmann::json plain = record("multi_head");
  const nlohmann::json edited = record("multi_head", {{"Wo", 0, 0.25}});
  std::vector<double> wo = recorded(plain, "Wo"), edited_wo = recorded(edited, "Wo");
  REQUIRE(wo.size() == edited_wo.size());
  CHECK(edited_wo[0] == 0.25);
  edited_wo[0] = wo[0];
  CHECK(edited_wo == wo);
  CHECK(edited["loss"].get<double>() != plain["loss"].get<double>());
  CHECK(edited["leaf_grads"].size() == plain["leaf_grads"].size());  // still a parameter
}

TEST_CASE("lesson edits: an index out of range, an unknown tensor or a fraction for class ids is a clear error") {
  CHECK_THROWS_WITH_AS((record("attention_head", {{"Wq", 16, 1}})),
                       "lesson: Wq[16] is out of range: Wq has 16 elements (indices 0 to 15)", Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"E", -1, 1}})), doctest::Contains("E[-1] is out of range"), Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"tokens", 4, 1}})),
                       doctest::Contains("tokens[4] is out of range: tokens has 4 elements"), Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"scores", 0, 1}})),
                       "lesson: attention_head has no input or setting named 'scores': its inputs are tokens, E, Wq, "
                       "Wk, Wv; its settings T, d_k, scale, masks, fill",
                       Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"Wq", std::nullopt, 1}})),
                       "lesson: Wq is a tensor: give the element, as Wq[0]=1", Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"d_k", 0, 2}})),
                       "lesson: d_k is a setting, not a tensor: write d_k=2", Error);
  CHECK_THROWS_WITH_AS((record("attention_head", {{"d_k", std::nullopt, 3}})),
                       "lesson: d_k=3: d_k takes 1, 2, 4, 8", Error);
  CHECK_THROWS_WITH_AS((record("gradcheck", {{"d_k", std::nullopt, 2}})), doctest::Contains("its settings eps, slip"),
                       Error);
  CHECK_THROWS_WITH_AS((record("cross_entropy", {{"targets", 0, 2.5}})),
                       "lesson: targets[0] = 2.5: targets holds int64, so the value must be a whole number of at "
                       "most 2^53",
                       Error);
  CHECK_THROWS_WITH_AS((record("cross_entropy", {{"targets", 0, -INFINITY}})),
                       doctest::Contains("a whole number"), Error);
  CHECK_THROWS_WITH_AS((record("cross_entropy", {{"targets", 0, 1e300}})), doctest::Contains("a whole number"), Error);
  CHECK_THROWS_WITH_AS((record("cross_entropy", {{"targets", 0, 99}})), doctest::Contains("cross_entropy"), Error);
}

std::vector<std::string> ops(const nlohmann::json& rec) {
  std::vector<std::string> out;
  for (const auto& e : rec["entries"]) out.push_back(e["op"]);
  return out;
}

TEST_CASE("lesson settings: d_k, the scale, the masks and their fill change the tape, and failing facts say so") {
  const nlohmann::json plain = record("attention_head");
  REQUIRE(plain["settings"].size() == 5);
  CHECK(plain["settings"][0]["name"] == "T");
  CHECK(plain["settings"][1] == nlohmann::json({{"name", "d_k"}, {"meaning", "the head size: columns of Wq, Wk and Wv"},
                                                {"value", "4"}, {"allowed", {"1", "2", "4", "8"}}}));
  CHECK(plain["settings"][4]["value"] == "-inf");
  const std::string query0 = "query 0 can see only key 0, so its weight there is 1";
  CHECK(facts(plain).at(query0));

  const nlohmann::json d2 = record("attention_head", {{"d_k", std::nullopt, 2}});
  CHECK(recorded(d2, "Wq").size() == 8);  // (C, d_k) = (4, 2)
  CHECK(d2["settings"][1]["value"] == "2");
  for (const double T : {2.0, 3.0, 5.0, 8.0}) {  // the facts hold for every length, the masks included
    const nlohmann::json rec = record("attention_head", {{"T", std::nullopt, T}});
    CHECK(recorded(rec, "tokens").size() == size_t(T));
    CHECK(rec["attention"][0]["keys"].back() == "<pad>");
    for (const auto& fact : facts(rec)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
      CAPTURE(fact.first);
      CHECK(fact.second);
    }
  }

  const std::vector<std::string> with_scale = ops(plain);
  const std::vector<std::string> without_scale = ops(record("attention_head", {{"scale", std::nullopt, 0}}));
  CHECK(without_scale.size() + 1 == with_scale.size());  // no mul by 1/sqrt(d_k)

  const nlohmann::json unmasked = record("attention_head", {{"masks", std::nullopt, 0}});
  const std::vector<std::string> unmasked_ops = ops(unmasked);
  CHECK(std::count(unmasked_ops.begin(), unmasked_ops.end(), "masked_fill") == 0);
  CHECK(std::count(with_scale.begin(), with_scale.end(), "masked_fill") == 2);
  CHECK_FALSE(facts(unmasked).at(query0));

  // A fill of 0 lets query 0 see the masked keys a little; -1e9 still hides them exactly (exp underflows).
  CHECK_FALSE(facts(record("attention_head", {{"fill", std::nullopt, 0}})).at(query0));
  const auto huge = facts(record("attention_head", {{"fill", std::nullopt, -1e9}}));
  CHECK(huge.at(query0));
  CHECK(huge.at("masked keys get weight exactly 0 (the causal upper triangle and each <pad> column)"));
}

TEST_CASE("lesson settings: multi_head's heads split the same E channels, and every check against the module holds") {
  for (const double heads : {1.0, 2.0, 4.0, 8.0}) {
    CAPTURE(heads);
    const nlohmann::json rec = record("multi_head", {{"heads", std::nullopt, heads}});
    for (const auto& fact : facts(rec)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
      CAPTURE(fact.first);
      CHECK(fact.second);
    }
    for (const auto& [id, t] : rec["tensors"].items())
      if (t["name"] == "weights") CHECK(t["value"]["shape"] == nlohmann::json({1, int(heads), 3, 3}));
  }
}

TEST_CASE("lesson settings: cross_entropy's label smoothing and changed targets keep every check holding") {
  const double plain_loss = record("cross_entropy")["loss"].get<double>();
  for (const std::vector<LessonEdit>& edits :
       {std::vector<LessonEdit>{{"label_smoothing", std::nullopt, 0.2}}, std::vector<LessonEdit>{{"targets", 1, 2}},
        std::vector<LessonEdit>{{"label_smoothing", std::nullopt, 0.5}, {"targets", 0, 4}}}) {
    const nlohmann::json rec = record("cross_entropy", edits);
    CHECK(rec["loss"].get<double>() != plain_loss);
    for (const auto& fact : facts(rec)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
      CAPTURE(fact.first);
      CHECK(fact.second);
    }
  }
  // Smoothing 0.5: each row of q is 0.1 for every class, 0.6 for the target.
  const std::vector<double> q = recorded(record("cross_entropy", {{"label_smoothing", std::nullopt, 0.5}}), "q");
  REQUIRE(q.size() == 15);
  CHECK(q[0] == doctest::Approx(0.1));
  CHECK(q[1] == doctest::Approx(0.6));  // targets[0] = 1
  CHECK_THROWS_WITH_AS((record("cross_entropy", {{"targets", 2, -1}})),
                       "lesson: cross_entropy: targets[2] = -1 is not a class: this lesson's targets are classes 0 to 4",
                       Error);
}

TEST_CASE("lesson settings: nan_hunt's bug hides behind a finite -1e9, and the facts that found it say so") {
  const auto bug = facts(record("nan_hunt"));
  const nlohmann::json hidden = record("nan_hunt", {{"hide", std::nullopt, -1e9}});
  const auto finite = facts(hidden);
  const std::string nan = "the loss is NaN";
  const std::string named = "anomaly mode stops at the mul that made the NaN, before softmax ever sees it";
  CHECK(bug.at(nan));
  CHECK(bug.at(named));
  CHECK_FALSE(finite.at(nan));  // 0 * -1e9 = 0: no NaN, and nothing for anomaly mode to find
  CHECK_FALSE(finite.at(named));
  CHECK(finite.at("the fixed loss is finite"));
  CHECK(hidden["settings"][0]["value"] == "-1000000000");
}

TEST_CASE("cli: lesson --set prints the changed lesson and says which facts stop holding, with exit 0") {
  const auto plain = run_cli({"lesson", "attention_head"});
  const auto changed = run_cli({"lesson", "attention_head", "--set", "masks=0", "--set", "d_k=2"});
  REQUIRE_MESSAGE(changed.status == 0, changed.err);
  CHECK(changed.out.find("Here the scale") == std::string::npos);
  CHECK(changed.out.find("The masks are off (masks=0)") != std::string::npos);
  CHECK(changed.out.find("sqrt(d_k) = sqrt(2)") != std::string::npos);
  CHECK(changed.out.find("of the lesson's facts do not hold with these changes") != std::string::npos);
  CHECK(plain.out.find("do not hold") == std::string::npos);
}

TEST_CASE("cli: explore --lesson --set writes the edited lesson's recording") {
  const TempDir temp("lesson_edits");
  const std::filesystem::path& dir = temp.path();
  const auto r = run_cli({"explore", "--lesson", "attention_head", "--set", "E[3]=0.5", "--set", "Wq[0]=-inf", "--set",
                          "d_k=2", "--set", "tokens[1]=7", "--out", (dir / "page.html").string(), "--json", (dir / "rec.json").string()});
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::ifstream in(dir / "rec.json");
  const nlohmann::json rec = nlohmann::json::parse(in);
  CHECK(recorded(rec, "E")[3] == 0.5);
  CHECK(recorded(rec, "tokens")[1] == 7);  // "dog"
  CHECK(recorded(rec, "Wq")[0] == -INFINITY);
  CHECK(recorded(rec, "Wq").size() == 8);
}


TEST_CASE("lesson settings: encoder_layer's length, causal mask, gelu and pre-LN backward keep every check holding") {
  const nlohmann::json plain = record("encoder_layer");
  std::vector<std::string> names;
  for (const auto& setting : plain["settings"]) names.push_back(setting["name"]);
  CHECK(names == std::vector<std::string>{"T", "causal", "gelu", "norm_first"});
  const std::vector<std::vector<LessonEdit>> choices = {
      {{"T", std::nullopt, 2}}, {{"T", std::nullopt, 6}}, {{"causal", std::nullopt, 1}}, {{"gelu", std::nullopt, 1}},
      {{"norm_first", std::nullopt, 1}},
      {{"T", std::nullopt, 5}, {"causal", std::nullopt, 1}, {"gelu", std::nullopt, 1}, {"norm_first", std::nullopt, 1}}};
  for (const std::vector<LessonEdit>& edits : choices) {
    const nlohmann::json rec = record("encoder_layer", edits);
    CHECK(rec["loss"].get<double>() != plain["loss"].get<double>());
    for (const auto& fact : facts(rec)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
      CAPTURE(fact.first);
      CHECK(fact.second);
    }
  }
  CHECK(recorded(record("encoder_layer", {{"T", std::nullopt, 6}}), "x").size() == 6 * 4);  // (B,T,E)
  const std::vector<std::string> causal = ops(record("encoder_layer", {{"causal", std::nullopt, 1}}));
  const std::vector<std::string> gelu = ops(record("encoder_layer", {{"gelu", std::nullopt, 1}}));
  CHECK(std::count(causal.begin(), causal.end(), "masked_fill") > 0);
  CHECK(std::count(gelu.begin(), gelu.end(), "gelu") > 0);
  const std::vector<std::string> relu = ops(plain);
  CHECK(std::count(relu.begin(), relu.end(), "masked_fill") == 0);
  CHECK(std::count(relu.begin(), relu.end(), "gelu") == 0);
}

TEST_CASE("lesson settings: gradcheck's step and slip turn facts red exactly where its tolerance says") {
  const auto plain = facts(record("gradcheck"));
  for (const auto& fact : plain) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
    CAPTURE(fact.first);
    CHECK(fact.second);
  }
  // central differences of x^3 are off by eps^2: 1e-8 passes, 1e-4 does not
  CHECK(facts(record("gradcheck", {{"eps", std::nullopt, 1e-4}})).at("the right rule passes gradcheck"));
  CHECK_FALSE(facts(record("gradcheck", {{"eps", std::nullopt, 1e-2}})).at("the right rule passes gradcheck"));
  // a slip of 0.01 is caught (3e-3 relative), one of 0.0001 hides inside rtol 1e-4
  const auto small = facts(record("gradcheck", {{"slip", std::nullopt, 2.99}}));
  CHECK(small.at("the wrong rule fails gradcheck"));
  CHECK(small.at("at the worst element the analytic gradient is 2.99/3 of the numeric one"));
  CHECK_FALSE(facts(record("gradcheck", {{"slip", std::nullopt, 2.9999}})).at("the wrong rule fails gradcheck"));
}

TEST_CASE("lesson tapes: the attention scale is a constant named 1/sqrt(d_k), in the lesson and in nn's attention") {
  for (const std::string lesson : {"attention_head", "multi_head", "encoder_layer"}) {
    CAPTURE(lesson);
    const nlohmann::json rec = record(lesson);
    CHECK(recorded(rec, "1/sqrt(d_k)").size() == 1);
    bool shown_by_name = false;  // the scores' mul takes it as its second input
    for (const auto& e : rec["entries"])
      for (const auto& in : e["inputs"])
        shown_by_name |= e["op"] == "mul" && in["tensor"].is_number() &&
                         rec["tensors"].at(in["tensor"].dump())["name"] == "1/sqrt(d_k)";
    CHECK(shown_by_name);
  }
}

TEST_CASE("lesson settings: double_backward's n and forward_vs_reverse's inputs and outputs reshape every tensor") {
  for (const double n : {1.0, 8.0}) {
    const nlohmann::json rec = record("double_backward", {{"n", std::nullopt, n}});
    CHECK(recorded(rec, "x").size() == size_t(n));
    for (const auto& fact : facts(rec)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
      CAPTURE(fact.first);
      CHECK(fact.second);
    }
  }
  const nlohmann::json wide = record("forward_vs_reverse", {{"inputs", std::nullopt, 6}, {"outputs", std::nullopt, 1}});
  CHECK(recorded(wide, "W").size() == 6);  // (m,n) = (1,6)
  CHECK(recorded(wide, "u").size() == 1);
  for (const auto& fact : facts(wide)) {  // statement -> holds (no structured binding: clang 14's CAPTURE)
    CAPTURE(fact.first);
    CHECK(fact.second);
  }
  bool says_reverse = false;
  for (const auto& step : wide["lesson"])
    if (step.contains("say")) says_reverse |= step["say"].get<std::string>().find("here reverse mode is cheaper") !=
                                            std::string::npos;
  CHECK(says_reverse);
}

}  // namespace tg::test
