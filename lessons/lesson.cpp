#include "lessons/lesson.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/grad_mode.h"
#include "core/tape.h"
#include "lessons/catalog.h"

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
       "the loss, and why its gradient is softmax - onehot (checked numerically)", cross_entropy_lesson},
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

void run_lesson(const Lesson& lesson, LessonLog& log) {
  struct ModesGuard {
    bool grad = GradMode::enabled(), anomaly = AnomalyMode::enabled();
    ~ModesGuard() { GradMode::set_enabled(grad), AnomalyMode::set_enabled(anomaly); }
  } restore;
  GradMode::set_enabled(true);
  AnomalyMode::set_enabled(false);
  tape().clear();
  lesson.run(log);
}

}  // namespace tg::lessons
