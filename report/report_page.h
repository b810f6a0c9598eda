#pragma once
// report.html: a run's training as pictures, in one self-contained file that opens from disk
// with nothing else (no server, nothing fetched: Chart.js, the page's script and style and
// the data are all inlined; report/page/ holds the page's own files). Library tapegrad_report,
// which the program links: the training library (train/) needs neither Chart.js nor this page.
//
//   charts      loss (train and validation), token accuracy (train and validation), exact match
//               (validation), learning rate, gradient norm and tokens/s, against steps; several
//               runs are overlaid, one colour per run
//   attention   every layer's and head's attention weights for one validation example, as
//               heatmaps with its tokens on both axes (the value on hover)
//   config      the runs' TrainConfig side by side, and a summary of each run
//
// `tapegrad train` rewrites report.html and metrics.csv (train/metrics_log.h) in its run directory
// at every evaluation and at the end (report/run_page_observer.h, an observer of the trainer);
// `tapegrad report DIR...` makes the page from run directories.
// The data is JSON in the page (<script id="report-data" type="application/json">):
//   {"title": ..., "runs": [{"name", "config": {...} | null,
//     "train": {"step": [...], "loss", "lr", "grad_norm", "token_acc", "tokens", "ms"},
//     "eval": {"step": [...], "loss", "token_acc", "exact_match", "sequences", "ms"},
//     "attention": {"step", "example", "tokens": [T], "heads", "layers": [[NH*T*T row-major]]} | null,
//     "no_attention": why attention is null ("no checkpoint", "an encoder-decoder run: ...") | ""}]}
// Metric values are written exactly as metrics.jsonl has them (missing ones as null); attention
// weights are rounded to 4 decimals.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "train/attention_snapshot.h"
#include "train/metrics_log.h"

namespace tg::report {

struct RunReport {
  std::string name;         // the run directory, as named
  std::string config_json;  // its TrainConfig as JSON (train/config.h); "" when unknown
  train::MetricsLog metrics;
  std::optional<train::AttentionExample> attention;
};

// The page for one or more runs.
std::string report_html(const std::vector<RunReport>& runs);

// <dir>/report.html (the page of `run` alone) and <dir>/metrics.csv, each written atomically
// (core/io/output_file.h).
void write_run_report(const std::filesystem::path& dir, const RunReport& run);

}  // namespace tg::report
