#pragma once
// What a training run reports, and where: the console and a JSONL metrics log.
//
// Console: on a terminal (isatty) one progress line redrawn in place,
//   [#########...........]  450/1500  loss 0.4121  acc 0.872  3.1 ms/step  20.6k tok/s  ETA 0:03
// with evaluations printed above it; otherwise (a file, a pipe, CI) a plain line every
// log_every steps and at every evaluation.
// Metrics log: metrics.jsonl, one JSON object per line, every training step and every
// evaluation (the format: train/metrics_log.h). The records are also kept in memory (log()),
// for the observers told of each checkpoint (train/fit_observer.h: report.html and metrics.csv).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "core/io/output_file.h"
#include "train/metrics_log.h"

namespace tg::train {

class Reporter {
 public:
  // console: nullptr = silent. steps: the run's total, for the bar and the ETA.
  Reporter(std::FILE* console, int64_t first_step, int64_t steps, int64_t log_every);
  ~Reporter();
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  // Appends to `path`, first dropping records after `keep_through_step` (a resumed run rewrites
  // the steps a crash left behind); a fresh run (keep_through_step 0) starts the file anew. The
  // old file is replaced atomically (core/io/output_file.h: a planted link is replaced, never
  // followed), then each record is appended as one whole line (AppendFile). The kept records are
  // read as untrusted input: a last line cut short (a crash while writing it) is dropped, any
  // other malformed line is an error naming the file and line.
  void open_log(const std::filesystem::path& path, int64_t keep_through_step);

  void step(const StepMetrics& m);
  void eval(const EvalMetrics& m);
  void message(const std::string& line);  // printed on its own line (above the bar)
  void finish();                          // ends the bar's line
  const MetricsLog& log() const { return records_; }  // the kept records and every one since

 private:
  void clear_bar();
  std::FILE* console_;
  bool tty_;
  int64_t first_step_, steps_, log_every_;
  bool bar_shown_ = false;
  bool bar_complete_ = false;  // the bar on screen shows the last step
  double last_draw_ = -1;  // seconds since start_ at the last redraw
  std::chrono::steady_clock::time_point start_;
  double loss_avg_ = 0;  // running average over recent steps, for the bar
  int64_t tok_total_ = 0;
  double ms_total_ = 0;
  std::optional<AppendFile> log_;
  MetricsLog records_;
};

}  // namespace tg::train
