// Bad-input matrix rows: output paths (see bad_input_case.h). An output flag naming one of a
// run's records (train/run_records.h) is refused, however the path is spelled. The rows share
// one tiny run on a labelled file (its data file is a record too), made on first use; no row
// writes to it (tests/train/symlink_planting_test.cpp checks the bytes).
#include <filesystem>
#include <fstream>

#include "bad_input/bad_input_case.h"
#include "train/train_test_util.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

struct RecordsRun {
  TempDir dir{"bad_input_output"};
  fs::path data = dir.path() / "upper.tsv";
  fs::path run = dir.path() / "run";
  fs::path link = dir.path() / "link.safetensors";  // a link to the run's checkpoint

  RecordsRun() {
    std::ofstream(data) << "a b\tA B\nb c a\tB C A\nc\tC\na a\tA A\nb\tB\n";
    const CliResult r = run_cli({"train", "--task", "file", "--data", data.string(), "--val-fraction", "0.2",
                                 "--steps", "2", "--warmup", "1", "--d-model", "16", "--heads", "2", "--layers", "1",
                                 "--ff", "16", "--out", run.string()});
    if (r.status != 0) throw std::runtime_error("the shared run failed: " + r.err);
    fs::create_symlink(run / "checkpoint.safetensors", link);
  }
  std::string in_run(const std::string& name) const { return (run / name).string(); }
};

const RecordsRun& shared() {
  static const RecordsRun run;
  return run;
}

BadInputCase row(std::string name, std::function<std::vector<std::string>(const RecordsRun&)> args,
                 std::vector<std::string> expected) {
  return {std::move(name), [args] { return cli_outcome(args(shared())); }, std::move(expected)};
}

}  // namespace

std::vector<BadInputCase> output_cases() {
  using Args = std::vector<std::string>;
  const std::string refused = "a record of the run, which no output replaces";
  return {
      row("report --out the run's checkpoint",
          [](const RecordsRun& r) { return Args{"report", r.run.string(), "--out", r.in_run("checkpoint.safetensors")}; },
          {"exit 1", "report: --out", "checkpoint.safetensors", refused}),
      row("report --out the run's metrics log spelled with ./",
          [](const RecordsRun& r) { return Args{"report", r.run.string(), "--out", r.in_run("./metrics.jsonl")}; },
          {"exit 1", "report: --out", "metrics.jsonl", refused}),
      row("report --out the run's metrics.csv",
          [](const RecordsRun& r) { return Args{"report", r.run.string(), "--out", r.in_run("metrics.csv")}; },
          {"exit 1", "report: --out", "metrics.csv", refused}),
      row("eval --predictions the run's checkpoint",
          [](const RecordsRun& r) {
            return Args{"eval", r.run.string(), "--predictions", r.in_run("checkpoint.safetensors")};
          },
          {"exit 1", "eval: --predictions", "checkpoint.safetensors", refused}),
      row("eval --predictions the run's data file",
          [](const RecordsRun& r) { return Args{"eval", r.run.string(), "--predictions", r.data.string()}; },
          {"exit 1", "eval: --predictions", "upper.tsv", refused}),
      row("eval --predictions a link to the run's checkpoint",
          [](const RecordsRun& r) { return Args{"eval", r.run.string(), "--predictions", r.link.string()}; },
          {"exit 1", "eval: --predictions", "link.safetensors", refused}),
      row("explore --out the run's checkpoint",
          [](const RecordsRun& r) { return Args{"explore", r.run.string(), "--out", r.in_run("checkpoint.safetensors")}; },
          {"exit 1", "explore: --out", "checkpoint.safetensors", refused}),
      row("explore --json the run's metrics log",
          [](const RecordsRun& r) {
            return Args{"explore", r.run.string(), "--out", r.in_run("e.html"), "--json", r.in_run("metrics.jsonl")};
          },
          {"exit 1", "explore: --json", "metrics.jsonl", refused}),
      row("explore --trace --out a run's checkpoint (the run found by the directory)",
          [](const RecordsRun& r) { return Args{"explore", "--trace", "--out", r.in_run("checkpoint.safetensors")}; },
          {"exit 1", "explore: --out", "checkpoint.safetensors", refused}),
      row("trace --dot a run's checkpoint",
          [](const RecordsRun& r) { return Args{"trace", "--dot", r.in_run("checkpoint.safetensors")}; },
          {"exit 1", "trace: --dot", "checkpoint.safetensors", refused}),
      row("trace --dot a link to a run's checkpoint",
          [](const RecordsRun& r) { return Args{"trace", "--dot", r.link.string()}; },
          {"exit 1", "trace: --dot", "link.safetensors", refused}),
      row("experiment --svg a run's metrics log",
          [](const RecordsRun& r) { return Args{"experiment", "mask", "--svg", r.in_run("metrics.jsonl")}; },
          {"exit 1", "experiment: --svg", "metrics.jsonl", refused}),
      row("export into the run directory itself",
          [](const RecordsRun& r) { return Args{"export", r.run.string(), "--format", "pytorch", r.run.string()}; },
          {"exit 1", "export", "which is not its own", "the whole directory is replaced"}),
  };
}

}  // namespace tg::test
