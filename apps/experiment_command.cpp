// tapegrad experiment [NAME]: without a name, lists the experiments (lessons/experiments/);
// with one, runs it, prints its table and what it shows, and writes its figure as SVG (gnuplot).
#include <string>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"
#include "lessons/experiments/experiment.h"
#include "train/run_records.h"

namespace tg::cli {

namespace {

struct ExperimentArgs {
  std::string name;
  std::string svg;  // default: <name>.svg
  lessons::ExperimentOptions options;
};

void run_experiment_command(const ExperimentArgs& args, Io& io) {
  const lessons::Experiment* experiment = args.name.empty() ? nullptr : lessons::find_experiment(args.name);
  if (!args.name.empty() && !experiment)
    throw CLI::ValidationError("name", fmt::format("no experiment named \"{}\"; the experiments are: {}", args.name,
                                                   lessons::experiment_names()));
  if (!experiment) {
    if (io.parse_only) return;
    fmt::print(io.out, "Experiments (run one with: tapegrad experiment NAME):\n");
    for (const lessons::Experiment& e : lessons::experiments()) fmt::print(io.out, "  {:<8} {}\n", e.name, e.summary);
    return;
  }
  const lessons::ExperimentOptions options = lessons::resolved(*experiment, args.options);
  if (io.parse_only) return;
  const std::string svg = args.svg.empty() ? args.name + ".svg" : args.svg;
  train::refuse_run_record("experiment", "--svg", svg);
  io.activity = "running the experiment " + args.name;
  const lessons::ExperimentResult result = experiment->run(options);
  fmt::print(io.out, "Experiment {}: {} (seed {}", experiment->name, experiment->summary, options.seed);
  if (experiment->default_steps > 0) fmt::print(io.out, ", {} steps", options.steps);
  if (experiment->default_queries > 0) fmt::print(io.out, ", {} queries", options.queries);
  fmt::print(io.out, ")\n\n{}\n", result.table.str());
  for (const std::string& note : result.notes) fmt::print(io.out, "{}\n", note);
  lessons::write_svg(result.figure, svg);
  fmt::print(io.out, "\nWrote the plot to {}\n", svg);
}

}  // namespace

void add_experiment_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand(
      "experiment", "List the experiments, or run one: a table of measurements and an SVG plot (gnuplot)");
  auto args = std::make_shared<ExperimentArgs>();
  sub->add_option("name", args->name, "the experiment to run (none: list them)");
  sub->add_option("--steps", args->options.steps, "training steps per run (init, heads; default 200)")
      ->check(integer_in(1, 100000));
  sub->add_option("--queries", args->options.queries, "query rows per d_k (scaling; default 64)")
      ->check(integer_in(1, 4096));
  sub->add_option("--seed", args->options.seed, "seeds the data and the weights")->capture_default_str()->check(seed_number());
  sub->add_option("--svg", args->svg, "where to write the plot (default: NAME.svg)");
  sub->callback([args, io] { run_experiment_command(*args, *io); });
}

}  // namespace tg::cli
