#include "train/metrics_log.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/json_fields.h"
#include "core/io/untrusted_text.h"
#include "train/config.h"

namespace tg::train {

namespace {

constexpr const char* kMetricsLogOp = "metrics_log";
constexpr int kMaxJsonDepth = 4;  // a record is one flat object

double number(const nlohmann::json& record, const char* key, const std::string& where) {
  auto it = record.find(key);
  if (it == record.end() || it->is_null()) return kMissing;
  if (!it->is_number())
    throw Error(kMetricsLogOp, fmt::format("{}: \"{}\" must be a number, got {}", where, key, excerpt(it->dump())));
  return it->get<double>();
}

// An integer field in [0, kMaxExamples]; -1 when missing.
int64_t count(const nlohmann::json& record, const char* key, const std::string& where, int64_t max) {
  auto it = record.find(key);
  if (it == record.end() || it->is_null()) return -1;
  if (!it->is_number_integer() || (it->is_number_unsigned() ? it->get<uint64_t>() > static_cast<uint64_t>(max)
                                                              : it->get<int64_t>() < 0 || it->get<int64_t>() > max))
    throw Error(kMetricsLogOp, fmt::format("{}: \"{}\" must be an integer in [0, {}], got {}", where, key, max,
                                 excerpt(it->dump())));
  return it->get<int64_t>();
}

// "" for a missing value, else the shortest text that reads back as the same double.
std::string csv_number(double x) { return std::isnan(x) ? std::string() : fmt::format("{}", x); }
std::string csv_count(int64_t n) { return n < 0 ? std::string() : fmt::format("{}", n); }

}  // namespace

std::string json_line(const StepMetrics& m) {
  return nlohmann::ordered_json{{"type", "train"},         {"step", m.step},      {"loss", m.loss},
                                {"lr", m.lr},              {"grad_norm", m.grad_norm},
                                {"token_acc", m.token_accuracy}, {"tokens", m.tokens}, {"ms", m.ms}}
      .dump();
}

std::string bits_per_byte_text(const EvalMetrics& m) {
  return m.bits_per_byte > 0 ? fmt::format("  bits per byte {:.4f}", m.bits_per_byte) : std::string();
}

std::string json_line(const EvalMetrics& m) {
  nlohmann::ordered_json j{{"type", "eval"},           {"step", m.step},   {"loss", m.loss},
                           {"token_acc", m.token_accuracy}, {"exact_match", m.exact_match},
                           {"sequences", m.sequences}, {"ms", m.ms}};
  if (m.bits_per_byte > 0) j["bits_per_byte"] = m.bits_per_byte;
  return j.dump();
}

void add_json_line(MetricsLog& log, std::string_view line, const std::string& where) {
  if (auto at = json_too_deep(line, kMaxJsonDepth))
    throw Error(kMetricsLogOp, fmt::format("{}: arrays and objects nest more than {} deep (at column {})", where, kMaxJsonDepth,
                                 *at + 1));
  nlohmann::json record;
  try {
    record = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number such as 1e400
    throw Error(kMetricsLogOp, fmt::format("{}: bad JSON: {}", where, excerpt(e.what(), 160)));
  }
  if (!record.is_object()) throw Error(kMetricsLogOp, fmt::format("{}: expected a JSON object, got {}", where, excerpt(line)));
  if (!record.contains("type"))
    throw Error(kMetricsLogOp, fmt::format("{}: the record has no \"type\" (\"train\" or \"eval\")", where));
  if (!record["type"].is_string())
    throw Error(kMetricsLogOp, fmt::format("{}: \"type\" must be \"train\" or \"eval\", got {}", where,
                                 json_excerpt(record["type"])));
  const std::string type = record["type"].get<std::string>();
  if (type != "train" && type != "eval") return;
  const int64_t step = count(record, "step", where, kMaxSteps);
  if (step < 0) throw Error(kMetricsLogOp, fmt::format("{}: the record has no \"step\"", where));
  if (type == "train")
    log.steps.push_back({.step = step,
                         .loss = number(record, "loss", where),
                         .lr = number(record, "lr", where),
                         .grad_norm = number(record, "grad_norm", where),
                         .token_accuracy = number(record, "token_acc", where),
                         .tokens = count(record, "tokens", where, kMaxExamples),
                         .ms = number(record, "ms", where)});
  else
    log.evals.push_back({.step = step,
                         .loss = number(record, "loss", where),
                         .token_accuracy = number(record, "token_acc", where),
                         .exact_match = number(record, "exact_match", where),
                         .sequences = count(record, "sequences", where, kMaxExamples),
                         .ms = number(record, "ms", where),
                         .bits_per_byte = number(record, "bits_per_byte", where)});
}

MetricsLog read_metrics_log(const std::filesystem::path& path) {
  const std::string text = InputFile(kMetricsLogOp, path).read_all();
  MetricsLog log;
  size_t start = 0;
  for (int64_t line_no = 1; start < text.size(); ++line_no) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string_view line = std::string_view(text).substr(start, end - start);
    start = end + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;  // a blank line
    add_json_line(log, line, fmt::format("{}:{}", path.string(), line_no));
  }
  return log;
}

std::string metrics_csv(const MetricsLog& log) {
  std::string csv = "step,loss,lr,grad_norm,token_acc,tokens,ms,val_loss,val_token_acc,val_exact_match,"
                    "val_sequences,val_ms\n";
  // Steps in order; an evaluation joins the row of its step's update (the last one logged for
  // that step), or has a row of its own.
  size_t s = 0, e = 0;
  const auto& steps = log.steps;
  const auto& evals = log.evals;
  while (s < steps.size() || e < evals.size()) {
    const bool take_step = s < steps.size() && (e >= evals.size() || steps[s].step <= evals[e].step);
    const StepMetrics* m = take_step ? &steps[s++] : nullptr;
    const int64_t step = m ? m->step : evals[e].step;
    const EvalMetrics* v = e < evals.size() && evals[e].step == step &&
                                   (s >= steps.size() || steps[s].step != step) ? &evals[e++] : nullptr;
    if (m) csv += fmt::format("{},{},{},{},{},{},{}", step, csv_number(m->loss), csv_number(m->lr),
                              csv_number(m->grad_norm), csv_number(m->token_accuracy), csv_count(m->tokens),
                              csv_number(m->ms));
    else csv += fmt::format("{},,,,,,", step);
    if (v) csv += fmt::format(",{},{},{},{},{}\n", csv_number(v->loss), csv_number(v->token_accuracy),
                              csv_number(v->exact_match), csv_count(v->sequences), csv_number(v->ms));
    else csv += ",,,,,\n";
  }
  return csv;
}

}  // namespace tg::train
