#pragma once
// A run's metrics: the records of metrics.jsonl (train/report.h writes it) in memory, read back
// from the file, and as CSV.
//
// metrics.jsonl, one JSON object per line:
//   {"type":"train","step":12,"loss":1.93,"lr":0.00036,"grad_norm":0.81,"token_acc":0.31,
//    "tokens":1088,"ms":3.4}
//   {"type":"eval","step":250,"loss":0.21,"token_acc":0.95,"exact_match":0.71,"sequences":512,"ms":80}
//   a text's task (lm) adds "bits_per_byte":1.62 to its eval records
// Numbers are written in their shortest exact form, so a log can be compared bit for bit.
//
// metrics.csv, one row per training step (and one per evaluation at a step without one),
// the evaluation columns filled on the steps that evaluated:
//   step,loss,lr,grad_norm,token_acc,tokens,ms,val_loss,val_token_acc,val_exact_match,val_sequences,val_ms
#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace tg::train {

inline constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();  // a field a record lacks

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
  int64_t scored_tokens = 0;    // positions counted in the token accuracy (printed, not logged)
  double bits_per_byte = 0;     // a text's tasks: the loss in bits per byte of the targets' text (0: not text;
                                // kMissing: read from a log without it)
};

struct MetricsLog {
  std::vector<StepMetrics> steps;  // in the order logged
  std::vector<EvalMetrics> evals;
};

// "  bits per byte 1.6213" for a text's evaluation, "" otherwise.
std::string bits_per_byte_text(const EvalMetrics& m);

// One line of metrics.jsonl, without the newline.
std::string json_line(const StepMetrics& m);
std::string json_line(const EvalMetrics& m);

// Adds the record `line` holds to `log`. Records of another "type" are skipped; a missing number
// reads as kMissing (tokens and sequences: -1). Malformed content (not a JSON object, no type or
// step, a field that is not a number) throws tg::Error("metrics_log", "<where>: ...").
void add_json_line(MetricsLog& log, std::string_view line, const std::string& where);

// Every record of metrics.jsonl, read as untrusted input (core/io/input_file.h); errors name
// the file and line: "metrics_log: runs/x/metrics.jsonl:3: bad JSON: ...".
MetricsLog read_metrics_log(const std::filesystem::path& path);

std::string metrics_csv(const MetricsLog& log);

}  // namespace tg::train
