#include "lessons/lesson.h"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/tape.h"
#include "lessons/catalog.h"
#include "lessons/values.h"

namespace tg::lessons {

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = {
      {"attention_head", "One attention head",
       "QKV projections, the 1/sqrt(d_k) scale, causal and padding masks with -inf, stable softmax, the weighted sum",
       attention_head_lesson},
      {"multi_head", "Multi-head attention", "split into heads, attend per head, concat, W_O", multi_head_lesson},
      {"encoder_layer", "An encoder layer",
       "residual + LayerNorm, post-LN and pre-LN, feed-forward, dropout off in eval", encoder_layer_lesson},
      {"cross_entropy", "Cross-entropy and the gradient of the logits",
       "the loss, and why its gradient is softmax - onehot (checked numerically); label smoothing", cross_entropy_lesson},
      {"gradcheck", "Checking your own function's gradient",
       "tg::gradcheck against finite differences, and what a wrong backward looks like", gradcheck_lesson},
      {"nan_hunt", "Hunting a NaN with anomaly mode",
       "a float mask times -inf gives NaN; anomaly mode names the op that made it", nan_hunt_lesson},
      {"forward_vs_reverse", "Forward mode and reverse mode",
       "tg::jvp gives J v in one forward pass, backward gives u^T J; both from one Jacobian", forward_vs_reverse_lesson},
      {"double_backward", "Differentiating a gradient",
       "backward with create_graph records its own tape: a gradient penalty and a Hessian-vector product",
       double_backward_lesson},
  };
  return all;
}

const Lesson* find_lesson(std::string_view name) {
  for (const Lesson& lesson : lessons())
    if (lesson.name == name) return &lesson;
  return nullptr;
}

std::string lesson_names() {
  std::vector<std::string_view> names;
  for (const Lesson& lesson : lessons()) names.push_back(lesson.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

double parse_lesson_value(std::string_view text) {
  if (text == "-inf") return -std::numeric_limits<double>::infinity();
  if (text == "inf") return std::numeric_limits<double>::infinity();
  if (text == "nan") return std::numeric_limits<double>::quiet_NaN();
  // strtod, not from_chars: libc++ 14 (the lab's WebAssembly build) has no from_chars for double.
  const std::string whole(text);
  char* end = nullptr;
  const bool blank = whole.empty() || std::isspace(static_cast<unsigned char>(whole[0]));  // strtod skips spaces
  const double value = blank ? NAN : std::strtod(whole.c_str(), &end);
  if (end != whole.c_str() + whole.size() || !std::isfinite(value))
    throw Error("lesson", fmt::format("the value '{}' is not a number (a decimal, -inf, inf or nan)", text));
  return value;
}

LessonEdit parse_lesson_edit(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Error("lesson", fmt::format("--set '{}': {}; write TENSOR[INDEX]=VALUE or SETTING=VALUE, as x[3]=0.5, "
                                       "scores[0]=-inf or d_k=2", text, why));
  };
  const size_t open = text.find('['), close = text.find("]="), equals = text.find('=');
  if (open == std::string_view::npos && equals != 0 && equals != std::string_view::npos) {
    const std::string_view value = text.substr(equals + 1);
    try {
      return {std::string(text.substr(0, equals)), std::nullopt, parse_lesson_value(value)};
    } catch (const Error&) {
      throw bad(fmt::format("the value '{}' is not a number (a decimal, -inf, inf or nan)", value));
    }
  }
  if (open == 0 || open == std::string_view::npos || close == std::string_view::npos || close < open)
    throw bad("it is not of that form");
  const std::string_view index_text = text.substr(open + 1, close - open - 1);
  int64_t index = 0;
  const auto [end, error] = std::from_chars(index_text.data(), index_text.data() + index_text.size(), index);
  if (index_text.empty() || error != std::errc() || end != index_text.data() + index_text.size() || index < 0)
    throw bad(fmt::format("the index '{}' is not a whole number from 0", index_text));
  const std::string_view value = text.substr(close + 2);
  try {
    return {std::string(text.substr(0, open)), index, parse_lesson_value(value)};
  } catch (const Error&) {
    throw bad(fmt::format("the value '{}' is not a number (a decimal, -inf, inf or nan)", value));
  }
}

std::vector<double> LessonLog::edited_values(std::string_view name, const Tensor& t) const {
  std::vector<double> edited;
  for (const LessonEdit& edit : edits_) {
    if (edit.name != name) continue;
    if (!edit.index)
      throw Error("lesson", fmt::format("{} is a tensor: give the element, as {}[0]={}", name, name, edit.value));
    if (edited.empty()) edited = values(t);
    if (*edit.index < 0 || *edit.index >= std::ssize(edited))
      throw Error("lesson", fmt::format("{}[{}] is out of range: {} has {} elements (indices 0 to {})", name,
                                        *edit.index, name, edited.size(), edited.size() - 1));
    const double v = edit.value;
    const bool whole = std::isfinite(v) && v == std::trunc(v) && std::abs(v) <= 0x1p53, flag = v == 0 || v == 1;
    if ((t.dtype() == kBool && !flag) || (!is_floating(t.dtype()) && !whole))
      throw Error("lesson", fmt::format("{}[{}] = {}: {} holds {}, so the value must be {}", name, *edit.index, v,
                                        name, dtype_name(t.dtype()),
                                        t.dtype() == kBool ? "0 or 1" : "a whole number of at most 2^53"));
    edited[*edit.index] = edit.value;
  }
  return edited;
}

Tensor LessonLog::input(std::string_view name, Tensor t) {
  const std::vector<double> edited = edited_values(name, t);
  if (!edited.empty()) {
    const bool grad = t.requires_grad();
    t = tensor(edited, t.shape(), t.dtype());
    if (grad) t.requires_grad_();
  }
  t.set_name(std::string(name));
  inputs_.push_back({std::string(name), t, {}});
  return t;
}

Tensor LessonLog::tokens(std::string_view name, const std::vector<int64_t>& ids, std::vector<std::string> vocabulary) {
  Tensor t = input(name, tensor_i64(ids));
  const std::vector<double> chosen = values(t);
  for (size_t i = 0; i < chosen.size(); ++i)
    if (chosen[i] < 0 || chosen[i] >= double(vocabulary.size())) {
      std::vector<std::string> listed;
      for (size_t id = 0; id < vocabulary.size(); ++id) listed.push_back(fmt::format("{} {}", id, vocabulary[id]));
      throw Error("lesson", fmt::format("{}[{}] = {}: {} holds ids into a vocabulary of {} tokens ({}), so an id "
                                        "lies in 0 to {}",
                                        name, i, chosen[i], name, vocabulary.size(), fmt::join(listed, ", "),
                                        vocabulary.size() - 1));
    }
  inputs_.back().vocabulary = std::move(vocabulary);
  return t;
}

void LessonLog::parameter(std::string_view name, Tensor p) {  // p shares the module's storage
  const std::vector<double> edited = edited_values(name, p);
  if (!edited.empty()) {
    NoGradGuard in_place;
    copy_(p, tensor(edited, p.shape(), p.dtype()));
  }
  p.set_name(std::string(name));
  inputs_.push_back({std::string(name), p, {}});
}

void LessonLog::label_axes(std::string_view name, std::vector<std::string> rows, std::vector<std::string> cols) {
  axis_labels_.push_back({std::string(name), std::move(rows), std::move(cols)});
}

double LessonLog::setting(std::string_view name, double value, std::vector<double> allowed, std::string_view meaning) {
  for (const LessonEdit& edit : edits_) {
    if (edit.name != name) continue;
    if (edit.index)
      throw Error("lesson", fmt::format("{} is a setting, not a tensor: write {}={}", name, name, edit.value));
    if (std::find(allowed.begin(), allowed.end(), edit.value) == allowed.end())
      throw Error("lesson", fmt::format("{}={}: {} takes {}", name, edit.value, name, fmt::join(allowed, ", ")));
    value = edit.value;
  }
  settings_.push_back({std::string(name), std::string(meaning), value, std::move(allowed)});
  return value;
}

void run_lesson(const Lesson& lesson, LessonLog& log, std::vector<LessonEdit> edits) {
  struct ModesGuard {
    bool grad = GradMode::enabled(), anomaly = AnomalyMode::enabled();
    ~ModesGuard() { GradMode::set_enabled(grad), AnomalyMode::set_enabled(anomaly); }
  } restore;
  GradMode::set_enabled(true);
  AnomalyMode::set_enabled(false);
  tape().clear();
  log.edits_ = std::move(edits);
  log.inputs_.clear();
  log.settings_.clear();
  log.axis_labels_.clear();
  lesson.run(log);
  std::vector<std::string> inputs, settings;
  for (const LessonLog::Input& input : log.inputs_) inputs.push_back(input.name);
  for (const LessonSetting& setting : log.settings_) settings.push_back(setting.name);
  for (const LessonEdit& edit : log.edits_) {
    const auto known = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), edit.name) != names.end();
    };
    const std::string listed = settings.empty() ? "none" : fmt::format("{}", fmt::join(settings, ", "));
    if (!known(inputs) && !known(settings))
      throw Error("lesson", fmt::format("{} has no input or setting named '{}': its inputs are {}; its settings {}",
                                        lesson.name, edit.name, fmt::join(inputs, ", "), listed));
  }
}

}  // namespace tg::lessons
