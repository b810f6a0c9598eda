#include "train/report.h"

#include <unistd.h>

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/output_file.h"

namespace tg::train {

namespace {

constexpr int kBarWidth = 24;
constexpr double kRedrawSeconds = 0.1;  // the bar is redrawn at most this often

std::string duration(double seconds) {
  const auto s = static_cast<int64_t>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60) : fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string rate(double per_second) {
  if (!std::isfinite(per_second)) return "-";
  return per_second >= 1e6 ? fmt::format("{:.1f}M", per_second / 1e6)
         : per_second >= 1e3 ? fmt::format("{:.1f}k", per_second / 1e3)
                             : fmt::format("{:.0f}", per_second);
}

}  // namespace

Reporter::Reporter(std::FILE* console, int64_t first_step, int64_t steps, int64_t log_every)
    : console_(console), tty_(console != nullptr && ::isatty(::fileno(console)) == 1), first_step_(first_step),
      steps_(steps), log_every_(log_every), start_(std::chrono::steady_clock::now()) {}

Reporter::~Reporter() { finish(); }

void Reporter::open_log(const std::filesystem::path& path, int64_t keep_through_step) {
  std::vector<std::string_view> kept;
  records_ = {};
  const std::string text = keep_through_step > 0 && std::filesystem::exists(path)
                               ? InputFile("metrics_log", path).read_all() : std::string();
  size_t start = 0;
  for (int64_t line_no = 1; start < text.size(); ++line_no) {
    const size_t newline = text.find('\n', start);
    const std::string_view line = std::string_view(text).substr(start, newline - start);
    start = newline == std::string::npos ? text.size() : newline + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    MetricsLog record;
    try {
      add_json_line(record, line, fmt::format("{}:{}", path.string(), line_no));
    } catch (const Error&) {
      if (newline == std::string::npos) break;  // the last line, cut short by a crash
      throw;
    }
    const int64_t step = !record.steps.empty() ? record.steps[0].step : !record.evals.empty() ? record.evals[0].step : -1;
    if (step < 0 || step > keep_through_step) continue;
    kept.push_back(line);
    records_.steps.insert(records_.steps.end(), record.steps.begin(), record.steps.end());
    records_.evals.insert(records_.evals.end(), record.evals.begin(), record.evals.end());
  }
  // The kept records go to a new file renamed over the log: a crash meanwhile leaves the old
  // log whole. Later records are appended a line at a time to what was renamed into place.
  {
    OutputFile rewritten("train", path);
    for (const std::string_view line : kept) rewritten.stream() << line << '\n';
    rewritten.commit();
  }
  log_.emplace("train", path);
}

void Reporter::step(const StepMetrics& m) {
  records_.steps.push_back(m);
  if (log_) log_->append_line(json_line(m));
  const int64_t done = m.step - first_step_;
  loss_avg_ = done == 1 ? m.loss : 0.9 * loss_avg_ + 0.1 * m.loss;
  ms_total_ += m.ms;
  tok_total_ += m.tokens;
  if (console_ == nullptr) return;

  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double eta = elapsed / static_cast<double>(done) * static_cast<double>(steps_ - m.step);
  const std::string stats = fmt::format("loss {:.4f}  acc {:.3f}  {:.1f} ms/step  {} tok/s  ETA {}", loss_avg_,
                                        m.token_accuracy, ms_total_ / static_cast<double>(done),
                                        rate(static_cast<double>(tok_total_) / (ms_total_ / 1e3)), duration(eta));
  if (tty_) {
    if (m.step != steps_ && last_draw_ >= 0 && elapsed - last_draw_ < kRedrawSeconds) return;
    last_draw_ = elapsed;
    const auto filled = static_cast<int>(kBarWidth * m.step / steps_);
    fmt::print(console_, "\r[{}{}] {:>{}}/{}  {}\x1b[K", std::string(filled, '#'), std::string(kBarWidth - filled, '.'),
               m.step, std::to_string(steps_).size(), steps_, stats);
    std::fflush(console_);
    bar_shown_ = true;
    bar_complete_ = m.step == steps_;
  } else if (m.step % log_every_ == 0 || m.step == steps_) {
    fmt::print(console_, "step {}/{}  lr {:.2e}  {}\n", m.step, steps_, m.lr, stats);
    std::fflush(console_);
  }
}

void Reporter::eval(const EvalMetrics& m) {
  records_.evals.push_back(m);
  if (log_) log_->append_line(json_line(m));
  message(fmt::format("eval at step {}: loss {:.4f}{}  token accuracy {:.4f}  exact match {:.4f}  ({} sequences, "
                      "{:.2f} s)", m.step, m.loss, bits_per_byte_text(m), m.token_accuracy, m.exact_match,
                      m.sequences, m.ms / 1e3));
}

void Reporter::message(const std::string& line) {
  if (console_ == nullptr) return;
  clear_bar();
  fmt::print(console_, "{}\n", line);
  std::fflush(console_);
}

void Reporter::clear_bar() {
  if (!bar_shown_) return;
  std::fputs(bar_complete_ ? "\n" : "\r\x1b[K", console_);  // a finished bar stays on screen
  bar_shown_ = false;
}

void Reporter::finish() {
  if (bar_shown_) fmt::print(console_, "\n");
  bar_shown_ = false;
  if (console_) std::fflush(console_);
}

}  // namespace tg::train
