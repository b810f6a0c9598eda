// Experiments, with tiny settings: the tables' shapes and the facts that must hold.
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "lessons/experiments/experiment.h"
#include "lessons/experiments/plot.h"
#include "tapegrad.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {
void require_shape(const lessons::Table& t, size_t rows, size_t columns) {
  REQUIRE(t.columns.size() == columns);
  REQUIRE(t.labels.size() == rows);
  REQUIRE(t.rows.size() == rows);
  for (const auto& row : t.rows) {
    REQUIRE(row.size() == columns - 1);
    for (double v : row) CHECK(std::isfinite(v));
  }
}
}  // namespace

TEST_CASE("experiment scaling: scaled score std near 1, unscaled near sqrt(d_k), unscaled softmax saturates with d_k") {
  const lessons::ExperimentResult r = lessons::scaling_experiment({.seed = 0, .steps = 0, .queries = 256});
  require_shape(r.table, 6, 7);
  for (size_t i = 0; i < r.table.rows.size(); ++i) {
    const double dk = std::stod(r.table.labels[i]);
    CAPTURE(dk);
    CHECK(r.table.at(i, "std scaled") == doctest::Approx(1).epsilon(0.1));
    CHECK(r.table.at(i, "std unscaled") == doctest::Approx(std::sqrt(dk)).epsilon(0.1));
    CHECK(r.table.at(i, "max-prob scaled") < 0.1);  // spread over 512 keys
  }
  const size_t dk64 = 3;
  REQUIRE(r.table.labels[dk64] == "64");
  CHECK(r.table.at(dk64, "max-prob unscaled") > 0.5);
  for (size_t i = 1; i < r.table.rows.size(); ++i)  // saturation grows with d_k unscaled
    CHECK(r.table.at(i, "max-prob unscaled") > r.table.at(i - 1, "max-prob unscaled"));
  REQUIRE(r.figure.panels.size() == 3);
}

TEST_CASE("experiment mask: -inf leaks nothing, a finite fill leaks into the all-masked query, 0 leaks everywhere") {
  const lessons::ExperimentResult r = lessons::mask_experiment({});
  require_shape(r.table, 5, 5);
  REQUIRE(r.table.labels == std::vector<std::string>{"-inf", "-1e9", "-1e4", "-10", "0"});
  for (const char* column : {"masked weight", "pad-query weight", "output change", "hidden-value grad"}) {
    CAPTURE(column);
    CHECK(r.table.at(0, column) == 0);
  }
  CHECK(r.table.at(1, "masked weight") == 0);             // -1e9 underflows in float32 ...
  CHECK(r.table.at(1, "pad-query weight") == doctest::Approx(1));  // ... but not for a query with no key left
  CHECK(r.table.at(3, "masked weight") > 0);
  CHECK(r.table.at(3, "masked weight") < 1e-3);           // -10: about exp(-10)
  CHECK(r.table.at(4, "masked weight") > 0.01);
  CHECK(r.table.at(4, "hidden-value grad") > 0.01);
}

TEST_CASE("experiment mask: a log axis, the -10 leak above the exact zeros, drawn at a floor labelled 0") {
  const lessons::ExperimentResult r = lessons::mask_experiment({});
  REQUIRE(r.figure.panels.size() == 1);
  const lessons::Panel& leaks = r.figure.panels[0];
  CHECK(leaks.log_y);
  const double floor = lessons::log_axis_floor(leaks);
  const double leak = r.table.at(3, "masked weight");  // -10: about 3.5e-5
  CHECK(floor > 0);
  CHECK(floor < leak);
  CHECK(floor > leak / 100);  // one decade below the smallest positive value, not far below
  const std::string script = lessons::gnuplot_script(r.figure);
  CHECK(script.find("set logscale y 10\n") != std::string::npos);
  CHECK(script.find(fmt::format("set ytics add ('0' {:.9g})", floor)) != std::string::npos);
  CHECK(script.find(fmt::format("set yrange [{:.9g}:*]", floor)) != std::string::npos);
  // the weights' series: -inf, -1e9, -1e4 at the floor, -10 at its leak
  const std::string weights = script.substr(script.find("$d0_0 << EOD\n"));
  CHECK(weights.find(fmt::format("0 {0:.9g}\n1 {0:.9g}\n2 {0:.9g}\n3 {1:.9g}\n", floor, leak)) != std::string::npos);
  // a log panel without zeros keeps gnuplot's own range
  const lessons::Figure loss{"loss", {{"", "", "", false, true, {}, {{"a", {1, 2}, {2.5, 0.5}}}}}};
  CHECK(lessons::gnuplot_script(loss).find("yrange [") == std::string::npos);
}

TEST_CASE("experiments init and heads: one row per variant after a few steps, N(0,1) starts with a larger loss") {
  const lessons::ExperimentResult init = lessons::init_experiment({.seed = 0, .steps = 4, .queries = 0});
  require_shape(init.table, 3, 6);
  CHECK(init.table.labels == std::vector<std::string>{"Xavier", "N(0,1)", "N(0,0.001^2)"});
  CHECK(init.table.at(1, "loss step 1") > init.table.at(0, "loss step 1"));
  REQUIRE(init.figure.panels.at(0).series.size() == 3);
  CHECK(init.figure.panels[0].series[0].y.size() == 4);

  const lessons::ExperimentResult heads = lessons::heads_experiment({.seed = 0, .steps = 3, .queries = 0});
  require_shape(heads.table, 4, 6);
  CHECK(heads.table.labels == std::vector<std::string>{"1", "2", "4", "8"});
  CHECK(heads.table.at(3, "head size") == 4);
}

TEST_CASE("experiments: the plot is an SVG drawn by gnuplot, the registry and option checks") {
  TempDir dir("experiment_plot");
  lessons::Figure figure{"a 'quoted' title", {{"panel", "x", "y", true, false, {}, {{"line", {1, 2, 4}, {3, 2, 1}}}},
                                              {"bars", "fill", "y", false, false, {"-inf", "0"}, {{"s", {0, 1}, {0, 1}}}}}};
  const auto svg = dir.path() / "figure.svg";
  lessons::write_svg(figure, svg);
  const std::string text = read_file(svg);
  CHECK(text.find("<svg") != std::string::npos);
  CHECK(text.find("-inf") != std::string::npos);
  CHECK_THROWS_WITH_AS(lessons::write_svg(figure, dir.path() / "missing" / "f.svg"),
                       doctest::Contains("cannot open its directory"), Error);

  REQUIRE(lessons::find_experiment("scaling") != nullptr);
  CHECK(lessons::find_experiment("nope") == nullptr);
  CHECK(lessons::experiment_names() == "scaling, mask, init, heads");
  const lessons::Experiment& init = *lessons::find_experiment("init");
  CHECK(lessons::resolved(init, {}).steps == 200);
  CHECK_THROWS_WITH_AS(lessons::resolved(init, {.seed = 0, .steps = 100001, .queries = 0}),
                       doctest::Contains("--steps must be in [1, 100000]"), Error);
}

TEST_CASE("cli: experiment lists, runs one with small settings and writes the plot") {
  const auto list = run_cli({"experiment"});
  REQUIRE(list.status == 0);
  CHECK(list.out.find("scaling") != std::string::npos);
  TempDir dir("cli_experiment");
  const std::string svg = (dir.path() / "mask.svg").string();
  const auto r = run_cli({"experiment", "mask", "--svg", svg});
  REQUIRE(r.status == 0);
  CHECK(r.out.find("masked weight") != std::string::npos);
  CHECK(r.out.find("Wrote the plot to " + svg) != std::string::npos);
  CHECK(read_file(svg).find("<svg") != std::string::npos);
}

}  // namespace tg::test
