// The report page and metrics files: metrics.jsonl read back as untrusted input, metrics.csv,
// report.html's inlined data, and the page's observer rewriting both at every evaluation.
#include <nlohmann/json.hpp>

#include "core/output_file_test_util.h"
#include "test_util.h"
#include "report/report_page.h"
#include "report/run_page_observer.h"
#include "train/train.h"
#include "train/train_test_util.h"

using namespace tg;
using tg::test::TempDir;

namespace {

// The JSON report.html carries (<script type="application/json" id="report-data">).
nlohmann::json page_data(const std::string& html) {
  const std::string open = R"(<script type="application/json" id="report-data">)";
  const size_t start = html.find(open);
  REQUIRE(start != std::string::npos);
  const size_t end = html.find("</script>", start);
  return nlohmann::json::parse(html.substr(start + open.size(), end - start - open.size()));
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE("metrics_log: records read back exactly as json_line wrote them, other types and blank lines skipped") {
  TempDir dir("metrics_read");
  const train::StepMetrics s{.step = 3, .loss = 0.1 + 0.2, .lr = 3e-3 / 7, .grad_norm = 1.5, .token_accuracy = 1 / 3.0,
                             .tokens = 1088, .ms = 2.25};
  const train::EvalMetrics e{.step = 3, .loss = 2 / 3.0, .token_accuracy = 0.5, .exact_match = 0.125, .sequences = 64,
                             .ms = 9};
  std::ofstream(dir.path() / "metrics.jsonl") << train::json_line(s) << "\n\n"
                                              << R"({"type":"note","text":"skipped"})" << "\n"
                                              << train::json_line(e) << "\n";
  const train::MetricsLog log = train::read_metrics_log(dir.path() / "metrics.jsonl");
  REQUIRE(log.steps.size() == 1);
  REQUIRE(log.evals.size() == 1);
  CHECK(log.steps[0].loss == s.loss);  // bit for bit
  CHECK(log.steps[0].lr == s.lr);
  CHECK(log.steps[0].token_accuracy == s.token_accuracy);
  CHECK(log.steps[0].tokens == 1088);
  CHECK(log.evals[0].loss == e.loss);
  CHECK(log.evals[0].sequences == 64);
  CHECK(train::json_line(log.steps[0]) == train::json_line(s));
}

TEST_CASE("metrics_log: malformed content is an error naming the file, the line and what is wrong") {
  TempDir dir("metrics_bad");
  const std::filesystem::path path = dir.path() / "metrics.jsonl";
  const std::string good = R"({"type":"train","step":1,"loss":2})";
  struct Case {
    std::string line, expected;
  };
  for (const Case& c : {Case{"{\"type\":\"train\",", "bad JSON"},
                        Case{"[1,2]", "expected a JSON object, got [1,2]"},
                        Case{R"({"step":1})", "the record has no \"type\" (\"train\" or \"eval\")"},
                        Case{R"({"type":1,"step":1})", "\"type\" must be \"train\" or \"eval\", got 1"},
                        Case{R"({"type":"train","loss":1})", "the record has no \"step\""},
                        Case{R"({"type":"train","step":-2})", "\"step\" must be an integer in [0, 1099511627776], got -2"},
                        Case{R"({"type":"eval","step":1.5})", "\"step\" must be an integer"},
                        Case{R"({"type":"train","step":1,"loss":"low"})", "\"loss\" must be a number, got \"low\""},
                        Case{R"({"type":"train","step":1,"x":[[[[[1]]]]]})", "arrays and objects nest more than 4 deep"}}) {
    CAPTURE(c.line);
    std::ofstream(path) << good << "\n" << c.line << "\n";
    CHECK_THROWS_WITH_AS(train::read_metrics_log(path),
                         doctest::Contains(("metrics_log: " + path.string() + ":2: " + c.expected).c_str()), Error);
  }
  CHECK_THROWS_WITH_AS(train::read_metrics_log(dir.path()), doctest::Contains("is a directory"), Error);
}

TEST_CASE("metrics_csv: one row per step, the evaluation's columns on its step, blanks for what is missing") {
  train::MetricsLog log;
  log.steps = {{.step = 1, .loss = 2.5, .lr = 0.001, .grad_norm = 1, .token_accuracy = 0.25, .tokens = 10, .ms = 3},
               {.step = 2, .loss = train::kMissing, .lr = 0.002, .grad_norm = 0.5, .token_accuracy = 0.5, .tokens = -1,
                .ms = 4}};
  log.evals = {{.step = 2, .loss = 1.5, .token_accuracy = 0.75, .exact_match = 0.5, .sequences = 8, .ms = 7},
               {.step = 3, .loss = 1, .token_accuracy = 1, .exact_match = 1, .sequences = 8, .ms = 6}};
  CHECK(lines(train::metrics_csv(log)) ==
        std::vector<std::string>{
            "step,loss,lr,grad_norm,token_acc,tokens,ms,val_loss,val_token_acc,val_exact_match,val_sequences,val_ms",
            "1,2.5,0.001,1,0.25,10,3,,,,,", "2,,0.002,0.5,0.5,,4,1.5,0.75,0.5,8,7", "3,,,,,,,1,1,1,8,6"});
}

TEST_CASE("report_html: one file with Chart.js, the script and the data inlined, no token can end the script") {
  report::RunReport run{.name = "runs/</script><b>x", .config_json = train::to_json(train::TrainConfig{}),
                       .metrics = {}, .attention = {}};
  run.metrics.steps = {{.step = 1, .loss = 0.1 + 0.2, .lr = 1e-3, .grad_norm = 2, .token_accuracy = 0.5, .tokens = 7,
                        .ms = 1.5}};
  run.attention = train::AttentionExample{.step = 1, .example = 0, .tokens = {"a", "</script>"}, .heads = 1,
                                          .layers = {{0.25f, 0.75f, 1, 0}}};
  const std::string html = report::report_html({run});
  CHECK(html.find("Chart.js v3") != std::string::npos);  // inlined from libjs-chart.js
  CHECK(html.find("function drawHeatmap") != std::string::npos);
  CHECK(html.find(" src=") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("@DATA@") == std::string::npos);
  CHECK(html.find("<title>tapegrad: runs/&lt;/script&gt;&lt;b&gt;x</title>") != std::string::npos);
  const nlohmann::json data = page_data(html);  // the first "</script>" after the data ends it
  REQUIRE(data["runs"].size() == 1);
  const nlohmann::json& r = data["runs"][0];
  CHECK(r["name"] == run.name);
  CHECK(r["train"]["loss"][0].get<double>() == 0.1 + 0.2);
  CHECK(r["eval"]["step"].empty());
  CHECK(r["config"]["task"] == "reverse");
  CHECK(r["attention"]["tokens"] == std::vector<std::string>{"a", "</script>"});
  CHECK(r["attention"]["layers"][0] == std::vector<double>{0.25, 0.75, 1, 0});
}

TEST_CASE("report_html: a token that reverses the text or holds terminal escapes is shown as its escapes") {
  report::RunReport run{.name = "runs/\xe2\x80\xae" "evil", .config_json = "", .metrics = {}, .attention = {}};
  run.attention = train::AttentionExample{.step = 1, .example = 0, .tokens = {"<!--<script>", "\x1b]0;T\x07"},
                                          .heads = 1, .layers = {{0.25f, 0.75f, 1, 0}}};
  const std::string html = report::report_html({run});
  CHECK(html.find("<title>tapegrad: runs/\\u202Eevil</title>") != std::string::npos);
  const nlohmann::json data = page_data(html);
  CHECK(data["runs"][0]["name"] == "runs/\\u202Eevil");
  CHECK(data["runs"][0]["attention"]["tokens"] == std::vector<std::string>{"<!--<script>", "\\x1B]0;T\\x07"});
  CHECK(html.find("\xe2\x80\xae") == std::string::npos);
  CHECK(html.find('\x1b') == std::string::npos);
}

TEST_CASE("report: metrics.csv and report.html are written atomically, never through a planted link") {
  TempDir dir("atomic");
  const report::RunReport run{.name = "r", .config_json = {}, .metrics = {}, .attention = {}};
  const std::filesystem::path page = dir.path() / "report.html", victim = dir.path() / "victim";
  std::ofstream(page) << "old";
  {
    test::FileSizeLimit limit(1000);  // the disk is "full" past 1000 bytes: the page is larger
    CHECK_THROWS_WITH_AS(report::write_run_report(dir.path(), run),
                         doctest::Contains(("report: cannot write " + page.string() + ": File too large").c_str()), Error);
  }
  CHECK(test::read_file(page) == "old");
  CHECK(test::temporaries_in(dir.path()).empty());

  std::ofstream(victim) << "not yours";
  for (const char* name : {"report.html", "report.html.tmp", "metrics.csv", "metrics.csv.tmp"}) {
    std::filesystem::remove(dir.path() / name);
    std::filesystem::create_symlink(victim, dir.path() / name);
  }
  report::write_run_report(dir.path(), run);
  CHECK(test::read_file(victim) == "not yours");
  CHECK(test::read_file(page).starts_with("<!doctype html>"));
  CHECK_FALSE(std::filesystem::is_symlink(dir.path() / "metrics.csv"));
}

TEST_CASE("Trainer with the page observer: report.html and metrics.csv at every evaluation, with validation example 0's attention maps") {
  TempDir dir("report_trainer");
  train::TrainConfig config = test::tiny_config("reverse", dir.path());
  config.steps = 12, config.eval_every = 5, config.warmup = 2, config.layers = 2;
  train::Trainer trainer(config, {.console = nullptr});
  trainer.attach(report::run_page_observer(trainer));
  std::vector<int64_t> evals_on_page_at_step_6;
  trainer.on_step = [&](const train::StepMetrics& m) {
    if (m.step != 6) return;
    const nlohmann::json page = page_data(test::read_file(dir.path() / "report.html"));
    for (const auto& step : page["runs"][0]["eval"]["step"]) evals_on_page_at_step_6.push_back(step);
  };
  trainer.fit();
  CHECK(evals_on_page_at_step_6 == std::vector<int64_t>{5});

  const train::MetricsLog log = train::read_metrics_log(dir.path() / "metrics.jsonl");
  const nlohmann::json run = page_data(test::read_file(dir.path() / "report.html"))["runs"][0];
  CHECK(run["name"] == config.out);
  CHECK(run["config"]["eval_every"] == 5);
  REQUIRE(run["train"]["loss"].size() == 12);
  for (size_t i = 0; i < 12; ++i) CHECK(run["train"]["loss"][i].get<double>() == log.steps[i].loss);
  CHECK(run["eval"]["step"] == std::vector<int64_t>{5, 10, 12});
  CHECK(test::read_file(dir.path() / "metrics.csv") == train::metrics_csv(log));

  train::SequenceTask& task = trainer.task_as<train::SequenceTask>();
  const data::Example example = task.data().val->get(0);
  std::vector<std::string> tokens;
  for (int64_t id : example.input) tokens.push_back(task.data().input_vocab.token(id));
  const nlohmann::json& attention = run["attention"];
  CHECK(attention["step"] == 12);
  CHECK(attention["tokens"] == tokens);
  CHECK(attention["heads"] == 2);
  const auto T = tokens.size();
  REQUIRE(attention["layers"].size() == 2);
  const std::vector<Tensor> maps = task.model().attention_maps(tensor_i64(example.input));
  for (size_t l = 0; l < 2; ++l) {
    const std::vector<float> expected = maps[l].to_vector<float>();
    REQUIRE(attention["layers"][l].size() == 2 * T * T);
    for (size_t i = 0; i < expected.size(); ++i)  // rounded to 4 decimals
      CHECK(std::abs(attention["layers"][l][i].get<double>() - expected[i]) <= 5.01e-5);
  }
}

TEST_CASE("Trainer of a seq2seq run with the page observer: report.html with curves and config but no attention maps, and metrics.csv") {
  TempDir dir("report_seq2seq");
  train::TrainConfig config = train::seq2seq_defaults();
  config.d_model = 16, config.heads = 2, config.layers = 1, config.ff = 32;
  config.steps = 4, config.batch_size = 8, config.warmup = 1, config.eval_every = 2, config.val_examples = 8;
  config.out = dir.str();
  train::Trainer trainer(config, {.console = nullptr});
  trainer.attach(report::run_page_observer(trainer));
  trainer.fit();
  const train::MetricsLog log = train::read_metrics_log(dir.path() / "metrics.jsonl");
  const nlohmann::json run = page_data(test::read_file(dir.path() / "report.html"))["runs"][0];
  CHECK(run["name"] == config.out);
  CHECK(run["config"]["arch"] == "seq2seq");
  CHECK(run["eval"]["step"] == std::vector<int64_t>{2, 4});
  CHECK(run["attention"].is_null());
  CHECK(test::read_file(dir.path() / "metrics.csv") == train::metrics_csv(log));
}

TEST_CASE("Reporter: a resumed log drops a last line cut short, and refuses other malformed lines naming them") {
  TempDir dir("report_resume");
  const std::filesystem::path path = dir.path() / "metrics.jsonl";
  std::ofstream(path) << R"({"type":"train","step":1,"loss":2})" << "\n" << R"({"type":"train","step":2,"lo)";
  {
    train::Reporter reporter(nullptr, 1, 4, 1);
    reporter.open_log(path, 1);
    CHECK(reporter.log().steps.size() == 1);
  }
  CHECK(test::read_file(path) == "{\"type\":\"train\",\"step\":1,\"loss\":2}\n");
  std::ofstream(path) << R"({"type":"train","step":1,"loss":2)" << "\n" << R"({"type":"train","step":2,"loss":1})" << "\n";
  train::Reporter reporter(nullptr, 1, 4, 1);
  CHECK_THROWS_WITH_AS(reporter.open_log(path, 2), doctest::Contains((path.string() + ":1: bad JSON").c_str()), Error);
}

TEST_CASE("cli report: one run's page into its directory, several overlaid into --out, --csv rewrites metrics.csv") {
  TempDir dir("report_cli");
  const std::string a = (dir.path() / "a").string(), b = (dir.path() / "b").string();
  for (const std::string& out : {a, b})
    REQUIRE(test::run_cli({"train", "--task", "copy", "--steps", "3", "--warmup", "1", "--d-model", "16", "--heads",
                           "2", "--layers", "1", "--ff", "16", "--batch-size", "8", "--val-examples", "8", "--out", out})
                .status == 0);
  const std::string trainer_page = test::read_file(dir.path() / "a" / "report.html");
  std::filesystem::remove(dir.path() / "a" / "report.html");
  std::filesystem::remove(dir.path() / "a" / "metrics.csv");
  auto r = test::run_cli({"report", a + "/", "--csv"});
  CHECK(r.status == 0);
  CHECK(r.out.find("wrote " + a + "/metrics.csv") != std::string::npos);
  CHECK(r.out.find("wrote " + a + "/report.html (1 run, ") != std::string::npos);
  CHECK(test::read_file(dir.path() / "a" / "report.html") == trainer_page);  // the trainer's page, made again
  CHECK(test::read_file(dir.path() / "a" / "metrics.csv") ==
        train::metrics_csv(train::read_metrics_log(dir.path() / "a" / "metrics.jsonl")));

  // b without its checkpoint: its curves, no config or attention maps
  std::filesystem::remove(dir.path() / "b" / "checkpoint.safetensors");
  const std::string both = (dir.path() / "both.html").string();
  r = test::run_cli({"report", a, b, "--out", both});
  CHECK(r.status == 0);
  CHECK(r.out.find("(2 runs, ") != std::string::npos);
  const nlohmann::json data = page_data(test::read_file(both));
  REQUIRE(data["runs"].size() == 2);
  CHECK(data["title"] == "tapegrad: 2 runs");
  CHECK(data["runs"][0]["name"] == a);
  CHECK(data["runs"][1]["name"] == b);
  CHECK(data["runs"][1]["train"]["step"] == std::vector<int64_t>{1, 2, 3});
  CHECK(data["runs"][0]["attention"]["layers"].size() == 1);
  CHECK(data["runs"][1]["attention"].is_null());
  CHECK(data["runs"][1]["config"].is_null());
}
