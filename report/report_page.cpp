#include "report/report_page.h"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/output_file.h"
#include "core/io/page_text.h"
#include "report/page/assets.h"
#include "train/registry/registry.h"

namespace tg::report {

namespace {

using Json = nlohmann::ordered_json;

Json count_or_null(int64_t n) { return n < 0 ? Json(nullptr) : Json(n); }

Json train_columns(const std::vector<train::StepMetrics>& steps) {
  Json step = Json::array(), loss = Json::array(), lr = Json::array(), grad_norm = Json::array(),
       token_acc = Json::array(), tokens = Json::array(), ms = Json::array();
  for (const train::StepMetrics& m : steps) {
    step.push_back(m.step), loss.push_back(m.loss), lr.push_back(m.lr), grad_norm.push_back(m.grad_norm);
    token_acc.push_back(m.token_accuracy), tokens.push_back(count_or_null(m.tokens)), ms.push_back(m.ms);
  }
  return {{"step", step}, {"loss", loss}, {"lr", lr}, {"grad_norm", grad_norm},
          {"token_acc", token_acc}, {"tokens", tokens}, {"ms", ms}};
}

Json eval_columns(const std::vector<train::EvalMetrics>& evals) {
  Json step = Json::array(), loss = Json::array(), token_acc = Json::array(), exact_match = Json::array(),
       sequences = Json::array(), ms = Json::array(), bits_per_byte = Json::array();
  for (const train::EvalMetrics& m : evals) {
    step.push_back(m.step), loss.push_back(m.loss), token_acc.push_back(m.token_accuracy);
    exact_match.push_back(m.exact_match), sequences.push_back(count_or_null(m.sequences)), ms.push_back(m.ms);
    bits_per_byte.push_back(m.bits_per_byte > 0 ? Json(m.bits_per_byte) : Json(nullptr));  // NaN: not logged
  }
  return {{"step", step}, {"loss", loss}, {"token_acc", token_acc}, {"exact_match", exact_match},
          {"sequences", sequences}, {"ms", ms}, {"bits_per_byte", bits_per_byte}};
}

Json attention_json(const train::AttentionExample& a) {
  Json layers = Json::array();
  for (const std::vector<float>& weights : a.layers) {
    Json rounded = Json::array();
    for (float w : weights) rounded.push_back(std::round(static_cast<double>(w) * 1e4) / 1e4);
    layers.push_back(std::move(rounded));
  }
  return {{"step", a.step}, {"example", a.example}, {"tokens", a.tokens}, {"heads", a.heads}, {"layers", layers}};
}

// Why a run's page has no attention maps (the page draws an encoder's or a GPT's self-attention
// over one validation example, read from the checkpoint with the run's data).
std::string no_attention_reason(const RunReport& run) {
  if (run.config_json.empty()) return "no checkpoint";
  if (train::arch_named(train::config_from_json(run.config_json).arch).decodes_sequences)
    return "an encoder-decoder run: the page draws self-attention of an encoder or a GPT";
  return "its validation data could not be read";
}

}  // namespace

std::string report_html(const std::vector<RunReport>& runs) {
  Json data_runs = Json::array();
  for (const RunReport& run : runs)
    data_runs.push_back({{"name", run.name},
                         {"config", run.config_json.empty() ? Json(nullptr) : Json::parse(run.config_json)},
                         {"train", train_columns(run.metrics.steps)},
                         {"eval", eval_columns(run.metrics.evals)},
                         {"attention", run.attention ? attention_json(*run.attention) : Json(nullptr)},
                         {"no_attention", run.attention ? "" : no_attention_reason(run)}});
  const std::string title = runs.size() == 1 ? fmt::format("tapegrad: {}", runs[0].name)
                                             : fmt::format("tapegrad: {} runs", runs.size());
  const std::string scripts = fmt::format("<script>{}</script>\n<script>{}</script>\n<script>{}</script>",
                                          page::chart_js(), page::heatmap_js(), page::report_js());
  const std::pair<std::string_view, std::string> fills[] = {
      {"@TITLE@", html_text(title)},
      {"@STYLE@", std::string(page::page_css())},
      {"@DATA@", script_json(Json{{"title", title}, {"runs", data_runs}})},
      {"@SCRIPTS@", scripts}};
  // Each placeholder is filled where it stands in the template, never inside what was filled in.
  std::string html;
  std::string_view page = page::page_html();
  while (!page.empty()) {
    size_t at = page.size();
    const std::pair<std::string_view, std::string>* next = nullptr;
    for (const auto& fill : fills)
      if (size_t p = page.find(fill.first); p < at) at = p, next = &fill;
    html.append(page.substr(0, at));
    if (next == nullptr) break;
    html += next->second;
    page.remove_prefix(at + next->first.size());
  }
  return html;
}

void write_run_report(const std::filesystem::path& dir, const RunReport& run) {
  write_file_atomically("report", dir / "metrics.csv", train::metrics_csv(run.metrics));
  write_file_atomically("report", dir / "report.html", report_html({run}));
}

}  // namespace tg::report
