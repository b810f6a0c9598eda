// tapegrad explore's recording (explore/recording.h), tensor summaries and page.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "apps/attention_example.h"
#include "core/tape_capture.h"
#include "explore/attention_maps.h"
#include "explore/lesson_log.h"
#include "explore/module_groups.h"
#include "explore/page.h"
#include "explore/recording.h"
#include "explore/tensor_summary.h"
#include "lessons/lesson.h"
#include "test_util.h"
#include "train/train_test_util.h"

using namespace tg;
using namespace tg::test;
using nlohmann::json;

TEST_CASE("explore summary: a small tensor exactly, rows = all dims but the last") {
  const json s = explore::summarize(tensor({1, -2, 3, 4, 5, 6}, {1, 2, 3}));
  CHECK(s["shape"] == json({1, 2, 3}));
  CHECK(s["rows"] == 2);
  CHECK(s["cols"] == 3);
  CHECK(s["exact"] == true);
  CHECK(s["values"] == json({1, -2, 3, 4, 5, 6}));
  CHECK(s["min"] == -2);
  CHECK(s["max"] == 6);
  CHECK(s["mean"].get<double>() == doctest::Approx(17.0 / 6));
  const json scalar = explore::summarize(tensor({2.5}, {}));
  CHECK(scalar["rows"] == 1);
  CHECK(scalar["cols"] == 1);
  CHECK(scalar["values"] == json({2.5}));
}

TEST_CASE("explore summary: a large tensor as block means, its statistics exact") {
  // v[r][c] = 130 r + c; cell (gr, gc) averages rows [gr*100/64, (gr+1)*100/64), cols likewise
  const json s = explore::summarize(reshape(arange(0, 100 * 130), {100, 130}));
  CHECK(s["exact"] == false);
  CHECK(s["grid_rows"] == 64);
  CHECK(s["grid_cols"] == 64);
  REQUIRE(s["values"].size() == 64 * 64);
  CHECK(s["values"][0] == 0.5);                          // row 0, cols 0-1
  CHECK(s["values"][64 * 64 - 1] == 98.5 * 130 + 128);   // rows 98-99, cols 127-129
  CHECK(s["min"] == 0);
  CHECK(s["max"] == 12999);
  CHECK(s["mean"] == 6499.5);
}

TEST_CASE("explore summary: non-finite values as strings, statistics over the finite ones") {
  const json s = explore::summarize(tensor({1, -INFINITY, 3, NAN}));
  CHECK(s["values"] == json({1, "-Infinity", 3, "NaN"}));
  CHECK(s["min"] == 1);
  CHECK(s["max"] == 3);
  CHECK(s["mean"] == 2);
  CHECK(explore::summarize(tensor({-INFINITY}))["min"].is_null());
}

TEST_CASE("explore summary: counts the values min, max and mean leave out") {
  const json s = explore::summarize(tensor({1, -INFINITY, 3, NAN, -INFINITY, INFINITY}));
  CHECK(s["finite"] == 2);
  CHECK(s["neg_inf"] == 2);
  CHECK(s["pos_inf"] == 1);
  CHECK(s["nan"] == 1);
  // The attention lesson's masked scores: 7 of the 16 are -inf (causal and padding), 9 are kept.
  TapeCapture capture;
  explore::LessonPageLog log(capture);
  lessons::run_lesson(*lessons::find_lesson("attention_head"), log);
  const json rec = log.recording();
  int found = 0;
  for (const auto& [id, t] : rec["tensors"].items()) {
    if (t["name"] != "masked") continue;
    ++found;
    CHECK(t["value"]["finite"] == 9);
    CHECK(t["value"]["neg_inf"] == 7);
    CHECK(t["value"]["pos_inf"] == 0);
    CHECK(t["value"]["nan"] == 0);
  }
  CHECK(found == 1);
}

namespace {
std::vector<double> shown_values(const json& rec, const Tensor& t) {
  std::vector<double> values;
  for (const json& v : rec["tensors"][std::to_string(t.id())]["value"]["values"])
    values.push_back(v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>());
  return values;
}

void check_shown(const json& rec, const Tensor& t) {
  const std::vector<float> expected = t.to_vector<float>();
  const std::vector<double> shown = shown_values(rec, t);
  REQUIRE(shown.size() == expected.size());
  for (size_t i = 0; i < shown.size(); ++i) {
    if (std::isinf(expected[i])) CHECK(shown[i] == expected[i]);  // Approx(-inf) matches nothing
    else CHECK(shown[i] == doctest::Approx(expected[i]).epsilon(1e-4));
  }
}
}  // namespace

TEST_CASE("explore recording: the trace example's entries, values and every backward step") {
  TapeCapture capture;
  const cli::AttentionExample ex = cli::attention_example(0);
  const json rec = explore::record(capture, ex.loss);
  const auto entries = tape().entries();
  REQUIRE(rec["entries"].size() == entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    CHECK(rec["entries"][i]["position"] == entries[i]->tape_position);
    CHECK(rec["entries"][i]["op"] == entries[i]->op);
  }
  for (const Tensor& t : ex.steps) check_shown(rec, t);  // every intermediate's values, -inf included
  check_shown(rec, ex.x);                                 // a constant input
  CHECK(rec["tensors"][std::to_string(ex.x.id())]["kind"] == "constant");
  CHECK(rec["tensors"][std::to_string(ex.Wq.id())]["kind"] == "parameter");
  CHECK(rec["tensors"][std::to_string(ex.steps[7].id())]["name"] == "weights");
  CHECK(rec["loss"].get<double>() == doctest::Approx(ex.loss.item()));
  CHECK(rec["dot"].get<std::string>().find("op0 ") != std::string::npos);

  // Backward ran every entry once, newest first; the first gets d loss = 1.
  REQUIRE(rec["backward"].size() == entries.size());
  CHECK(rec["backward"][0]["position"] == entries.back()->tape_position);
  CHECK(rec["backward"].back()["position"] == 0);
  const json first_in = rec["backward"][0]["grads_in"];
  REQUIRE(first_in.size() == 1);
  CHECK(rec["tensors"][std::to_string(first_in[0].get<int64_t>())]["value"]["values"] == json({1}));
  // masked_fill's mask input needs no gradient
  for (const json& step : rec["backward"])
    if (rec["entries"][step["position"].get<size_t>()]["op"] == "masked_fill") CHECK(step["grads_out"][1].is_null());

  // The parameters' gradients are those of an ordinary backward of the same example.
  const cli::AttentionExample again = cli::attention_example(0);
  again.loss.backward();
  for (auto [mine, theirs] : {std::pair{ex.Wq, again.Wq}, std::pair{ex.Wk, again.Wk}, std::pair{ex.Wv, again.Wv}}) {
    const json id = rec["leaf_grads"][std::to_string(mine.id())];
    REQUIRE(id.is_number());
    const std::vector<float> expected = theirs.grad().to_vector<float>();
    const json shown = rec["tensors"][std::to_string(id.get<int64_t>())]["value"]["values"];
    REQUIRE(shown.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) CHECK(shown[i].get<double>() == doctest::Approx(expected[i]).epsilon(1e-4));
  }
}

TEST_CASE("explore module groups: runs of entries nest by module path, a list's index kept with its name") {
  CHECK(explore::module_levels("encoder.layers.10.ff") == std::vector<std::string>{"encoder", "layers.10", "ff"});
  CHECK(explore::module_levels("").empty());
  const std::vector<std::string> modules = {"", "encoder.layers.0.self_attn.q_proj", "encoder.layers.0.self_attn.k_proj",
                                            "encoder.layers.0.linear1", "encoder.layers.1.linear1", "", "head"};
  const std::vector<explore::ModuleGroup> groups = explore::module_groups({0, 1, 2, 3, 4, 5, 6}, modules);
  std::vector<std::string> shown;
  for (const explore::ModuleGroup& g : groups) shown.push_back(fmt::format("{} {}-{}", g.path, g.first, g.last));
  CHECK(shown == std::vector<std::string>{"encoder 1-4", "encoder.layers.0 1-3", "encoder.layers.0.self_attn 1-2",
                                          "encoder.layers.0.self_attn.q_proj 1-1", "encoder.layers.0.self_attn.k_proj 2-2",
                                          "encoder.layers.0.linear1 3-3", "encoder.layers.1 4-4",
                                          "encoder.layers.1.linear1 4-4", "head 6-6"});
}

TEST_CASE("explore recording: the module groups, each with its own graph of its entries alone") {
  const nlohmann::json rec = explore::record_lesson(*lessons::find_lesson("encoder_layer"), {});
  const nlohmann::json& groups = rec.at("groups");
  REQUIRE(!groups.empty());
  for (const nlohmann::json& group : groups) {
    const std::string path = group["path"];
    CAPTURE(path);
    CHECK(group["name"] == explore::module_levels(path).back());
    const int64_t first = group["first"], last = group["last"];
    for (const auto& e : rec["entries"]) {
      const int64_t p = e["position"];
      const bool drawn = group["dot"].get<std::string>().find(fmt::format("  op{} [", p)) != std::string::npos;
      CHECK(drawn == (p >= first && p <= last));
      if (p >= first && p <= last) CHECK(e["module"].get<std::string>().starts_with(path));
    }
  }
  // The lab lays its graphs out itself: without DOT, the same groups.
  const nlohmann::json plain = explore::record_lesson(*lessons::find_lesson("encoder_layer"), {}, explore::Graphs::kNone);
  CHECK_FALSE(plain.contains("dot"));
  REQUIRE(plain["groups"].size() == groups.size());
  for (size_t i = 0; i < groups.size(); ++i) {
    CHECK_FALSE(plain["groups"][i].contains("dot"));
    CHECK(plain["groups"][i]["path"] == groups[i]["path"]);
  }
}

TEST_CASE("explore recording: the loss must be one element that requires grad") {
  TapeCapture capture;
  Tensor x = tensor({1, 2}).requires_grad_();
  Tensor y = x * 2;
  CHECK_THROWS_WITH_AS(explore::record(capture, y), doctest::Contains("one-element tensor"), Error);
  CHECK_THROWS_WITH_AS(explore::record(capture, tensor({1})), doctest::Contains("requires grad"), Error);
}

TEST_CASE("explore attention maps: one per softmax, labelled with the tokens, rows summing to 1") {
  TapeCapture capture;
  cli::attention_example(0);
  const json maps = explore::attention_maps(explore::softmax_outputs(capture), {"a", "b", "c"});
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]["layer"] == "#7 softmax");
  CHECK(maps[0]["queries"] == json({"a", "b", "c"}));
  const json w = maps[0]["weights"]["values"];
  REQUIRE(w.size() == 9);
  for (int r = 0; r < 3; ++r)
    CHECK(w[3 * r].get<double>() + w[3 * r + 1].get<double>() + w[3 * r + 2].get<double>() == doctest::Approx(1).epsilon(1e-4));
  CHECK(w[1] == 0);  // the causal mask: query 0 sees key 0 only
}

TEST_CASE("explore page: one file, its data the recording, nothing loaded from elsewhere") {
  TapeCapture capture;
  const cli::AttentionExample ex = cli::attention_example(0);
  json rec = explore::record(capture, ex.loss);
  rec["title"] = "a <b>bold</b> title";
  const std::string html = explore::page_html(rec);
  CHECK(html.find("<title>a &lt;b&gt;bold&lt;/b&gt; title</title>") != std::string::npos);
  CHECK(html.find("<svg") != std::string::npos);
  CHECK(html.find("<script src") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  const std::string open = R"(<script type="application/json" id="recording">)";
  const size_t start = html.find(open) + open.size();
  CHECK(json::parse(html.substr(start, html.find("</script>", start) - start)) == rec);
}

TEST_CASE("explore page: without Graphviz's dot, an error naming the graphviz package") {
  const std::string path = std::getenv("PATH");
  setenv("PATH", "/nonexistent", 1);
  CHECK_THROWS_WITH_AS(explore::render_svg("digraph { a }"), doctest::Contains("install the graphviz package"), Error);
  setenv("PATH", path.c_str(), 1);
  CHECK_THROWS_WITH_AS(explore::render_svg("digraph { a -> }"), doctest::Contains("dot failed"), Error);
}

TEST_CASE("explore page: Graphviz runs without a shell: a TMPDIR holding shell syntax runs nothing") {
  TempDir dir("explore_tmpdir");
  const std::filesystem::path pwned = dir.path() / "PWNED";
  const std::string tmpdir = dir.str() + "/x';touch " + pwned.string() + ";'";  // the issue's reproduction
  std::filesystem::create_directories(tmpdir);
  std::string svg;
  {
    const ScopedEnv env("TMPDIR", tmpdir);
    CHECK_NOTHROW(svg = explore::render_svg("digraph { a -> b }"));
  }
  CHECK(svg.starts_with("<svg"));
  CHECK_FALSE(std::filesystem::exists(pwned));
}

TEST_CASE("explore page: a token that opens a comment and a script, or reverses the text, stays data") {
  TapeCapture capture;
  const cli::AttentionExample ex = cli::attention_example(0);
  json rec = explore::record(capture, ex.loss);
  // "<!--<script>" inside a script element would make the parser swallow the page's own scripts
  rec["description"] = "tokens: <!--<script> \xe2\x80\xae\x1b[2J";
  const std::string html = explore::page_html(rec);
  const std::string open = R"(<script type="application/json" id="recording">)";
  const size_t start = html.find(open) + open.size(), end = html.find("</script>", start);
  const std::string data = html.substr(start, end - start);
  CHECK(data.find('<') == std::string::npos);
  CHECK(json::parse(data)["description"] == "tokens: <!--<script> \\u202E\\x1B[2J");
  CHECK(html.find("<script>", end) != std::string::npos);  // the page's own scripts follow, untouched
}
