#pragma once
// What a training run reports, and where: the console and a JSONL metrics log.
//
// Console: on a terminal (isatty) one progress line redrawn in place,
//   [#########...........]  450/1500  loss 0.4121  acc 0.872  3.1 ms/step  20.6k tok/s  ETA 0:03
// with evaluations printed above it; otherwise (a file, a pipe, CI) a plain line every
// log_every steps and at every evaluation.
// Metrics log: one JSON object per line, every training step and every evaluation:
//   {"type":"train","step":12,"loss":1.93,"lr":0.00036,"grad_norm":0.81,"token_acc":0.31,
//    "tokens":1088,"ms":3.4}
//   {"type":"eval","step":250,"loss":0.21,"token_acc":0.95,"exact_match":0.71,"sequences":512}
// Numbers are written in their shortest exact form, so a log can be compared bit for bit.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace tg::train {

struct StepMetrics {  // one optimizer update
  int64_t step = 0;             // 1, 2, ...
  double loss = 0;              // mean over the update's micro-batches
  double lr = 0;                // the learning rate the update used
  double grad_norm = 0;         // before clipping
  double token_accuracy = 0;    // on the training batch
  int64_t tokens = 0;           // input tokens (not pads) processed
  double ms = 0;                // wall time of the update
};

struct EvalMetrics {
  int64_t step = 0;
  double loss = 0;              // mean cross entropy per scored token
  double token_accuracy = 0;
  double exact_match = 0;
  int64_t sequences = 0;
  double ms = 0;
  int64_t scored_tokens = 0;    // positions counted in the token accuracy
};

class Reporter {
 public:
  // console: nullptr = silent. steps: the run's total, for the bar and the ETA.
  Reporter(std::FILE* console, int64_t first_step, int64_t steps, int64_t log_every);
  ~Reporter();
  Reporter(const Reporter&) = delete;
  Reporter& operator=(const Reporter&) = delete;

  // Appends to `path`, first dropping records after `keep_through_step` (a resumed run rewrites
  // the steps a crash left behind); a fresh run (keep_through_step 0) starts the file anew. The
  // old file is replaced atomically (a temporary file renamed over it).
  void open_log(const std::filesystem::path& path, int64_t keep_through_step);

  void step(const StepMetrics& m);
  void eval(const EvalMetrics& m);
  void message(const std::string& line);  // printed on its own line (above the bar)
  void finish();                          // ends the bar's line

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
  double ms_avg_ = 0;
  int64_t tok_total_ = 0;
  double ms_total_ = 0;
  std::ofstream log_;
};

}  // namespace tg::train
