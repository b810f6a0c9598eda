// tapegrad report: report.html (report/report_page.h) made from one or more run directories'
// metrics.jsonl and checkpoints, the runs overlaid; --csv also rewrites each run's metrics.csv.
// A run directory written into (its report.html, its metrics.csv) is locked while the command
// runs (train/run_lock.h): a run still training refuses it, naming the training's pid; a
// directory named twice (a ./a) is locked once.
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/commands.h"
#include "core/error.h"
#include "core/io/output_file.h"
#include "core/io/untrusted_text.h"
#include "report/report_page.h"
#include "train/attention_snapshot.h"
#include "train/checkpoint.h"
#include "train/registry/registry.h"
#include "train/run_lock.h"
#include "train/run_records.h"
#include "train/task_data.h"

namespace tg::cli {

namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  std::string out;  // "": <run>/report.html for one run, report.html for several
  bool csv = false;
};

// The config and attention maps come from the checkpoint when there is one; the attention maps
// also need the run's data (validation example 0): when it cannot be made, the page has none.
report::RunReport load_run(const std::filesystem::path& dir, Io& io) {
  if (!std::filesystem::exists(dir)) throw Error("report", fmt::format("{}: no such directory", dir.string()));
  if (!std::filesystem::is_directory(dir))
    throw Error("report", fmt::format("{}: not a directory (a run directory holds metrics.jsonl)", dir.string()));
  if (!std::filesystem::exists(dir / "metrics.jsonl"))
    throw Error("report", fmt::format("{}: not a run directory (it has no metrics.jsonl)", dir.string()));
  report::RunReport run{.name = dir.string(), .config_json = {}, .metrics = {}, .attention = {}};
  io.activity = "reading " + (dir / "metrics.jsonl").string();
  run.metrics = train::read_metrics_log(dir / "metrics.jsonl");
  const std::filesystem::path checkpoint = dir / "checkpoint.safetensors";
  if (!std::filesystem::exists(checkpoint)) return run;
  io.activity = "loading " + checkpoint.string();
  const train::Checkpoint c = train::load_checkpoint(checkpoint);
  run.config_json = train::to_json(c.config);
  // the page's attention maps are a per-position model's (an encoder's or gpt's)
  if (train::arch_named(c.config.arch).decodes_sequences) return run;
  try {
    const train::TaskData data = train::make_task_data(c.config);
    if (train::model_config(c.config, data) != c.model_config)
      throw Error("report", "the model does not fit its task's data (the data file changed?)");
    if (data.val->size() == 0) throw Error("report", "the validation set is empty");
    auto model = train::load_model(c);
    run.attention = train::attention_example(*model, data.val->get(0), data.input_vocab, c.step);
  } catch (const Error& e) {
    fmt::print(io.err, "tapegrad report: {}: no attention maps: {}\n", dir.string(),
               visible_text(e.what(), LineBreaks::keep));
  }
  return run;
}

// The records of every run on the page, which --out must not replace.
std::vector<std::filesystem::path> records(const std::vector<report::RunReport>& runs) {
  std::vector<std::filesystem::path> all;
  for (const report::RunReport& run : runs) {
    const std::optional<train::TrainConfig> config =
        run.config_json.empty() ? std::nullopt : std::optional(train::config_from_json(run.config_json));
    for (std::filesystem::path& record :
         train::run_records(std::filesystem::path(run.name) / "checkpoint.safetensors", config ? &*config : nullptr))
      all.push_back(std::move(record));
  }
  return all;
}

void run_report(const ReportArgs& args, Io& io) {
  if (io.parse_only) return;
  std::vector<report::RunReport> runs;
  train::RunLocks locks;  // of the run directories written into, until the command ends
  const bool page_in_run = args.out.empty() && args.runs.size() == 1;
  for (const std::string& name : args.runs) {
    std::filesystem::path dir(name);
    if (!dir.has_filename() && dir.has_parent_path()) dir = dir.parent_path();  // "runs/a/" -> "runs/a"
    runs.push_back(load_run(dir, io));
    if (args.csv || page_in_run) locks.lock("report", dir);
  }
  const std::filesystem::path out = !args.out.empty() ? std::filesystem::path(args.out)
                                    : page_in_run     ? std::filesystem::path(runs[0].name) / "report.html"
                                                      : std::filesystem::path("report.html");
  if (!args.out.empty()) train::refuse_run_record("report", "--out", out, records(runs));
  if (args.csv)
    for (const report::RunReport& run : runs) {
      const std::filesystem::path csv = std::filesystem::path(run.name) / "metrics.csv";
      write_file_atomically("report", csv, train::metrics_csv(run.metrics));
      fmt::print(io.out, "wrote {}\n", csv.string());
    }
  io.activity = "writing " + out.string();
  const std::string html = report::report_html(runs);
  write_file_atomically("report", out, html);
  fmt::print(io.out, "wrote {} ({} run{}, {} kB)\n", out.string(), runs.size(), runs.size() == 1 ? "" : "s",
             (html.size() + 512) / 1024);
}

}  // namespace

void add_report_command(CLI::App& app, const std::shared_ptr<Io>& io) {
  CLI::App* sub = app.add_subcommand("report", "Write report.html (training curves, attention maps, config) for "
                                               "one or more run directories, overlaid");
  auto args = std::make_shared<ReportArgs>();
  sub->add_option("runs", args->runs, "run directories (each with metrics.jsonl)")->required()->check(utf8_path());
  sub->add_option("--out", args->out, "the page to write (default: <run>/report.html for one run, report.html for "
                                      "several)");
  sub->add_flag("--csv", args->csv, "also rewrite each run's metrics.csv");
  sub->callback([args, io] { run_report(*args, *io); });
}

}  // namespace tg::cli
