// Lesson: hunting a NaN with anomaly mode.
// The broken mask: a float "keep" mask (1 = keep, 0 = hide) turned into an additive mask as
//   additive = (1 - keep) * -inf
// gives 0 * -inf = NaN at every kept position, and the NaN flows into every score and weight.
// Anomaly mode checks every op's output and names the first one that made a NaN. A setting puts
// a large finite number in place of -inf: then 0 * -1e9 = 0, and the bug hides.
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/copy.h"
#include "core/error.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/common/attention_options.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t kPositions = 3;

Tensor keep_mask() {  // float, 1 = keep: the lower triangle (causal)
  return tensor({1, 0, 0, 1, 1, 0, 1, 1, 1}, {kPositions, kPositions});
}

Tensor visible_keys() {  // bool, true where keep is 1
  return tensor_bool({true, false, false, true, true, false, true, true, true}, {kPositions, kPositions});
}

// `hide` is what (1 - keep) multiplies: -inf (the bug) or a large finite number.
Tensor attention_loss(const Tensor& scores, double hide) {
  Tensor additive = mul(sub(1.0, keep_mask()), hide).set_name("additive mask");
  Tensor weights = softmax(add(scores, additive), -1).set_name("weights");
  return sum(mul(weights, scores)).set_name("loss");
}
}  // namespace

void nan_hunt_lesson(LessonLog& log) {
  Generator gen(16);
  log.say("A training run prints loss = nan. Where did it come from? Here is the bug in three lines: a float keep "
          "mask (1 = keep) turned into an additive mask as (1 - keep) * -inf. Where keep is 1 that is 0 * -inf, "
          "which IEEE 754 defines as NaN.");
  const double hide = log.setting("hide", -INFINITY, {-INFINITY, -1e9},
                                  "what (1 - keep) multiplies: -inf (the bug) or a large finite number");
  Tensor scores = log.input("scores", randn({kPositions, kPositions}, kF32, kCPU, gen).requires_grad_());
  log.show("scores", scores);
  log.show("keep", keep_mask());
  Tensor loss = attention_loss(scores, hide);
  log.show("loss", loss);
  log.fact("the loss is NaN", std::isnan(loss.item()));

  log.say("Turn on anomaly mode (tg::AnomalyGuard; tapegrad train turns it on by itself to re-run a step whose loss is "
          "not finite) and run the same code again. "
          "Every op's output is checked for NaN and +inf (-inf is allowed: it is how masks hide keys), and the first "
          "op that makes one throws, naming itself:");
  std::string message;
  try {
    AnomalyGuard anomaly;
    attention_loss(scores, hide);
  } catch (const Error& e) {
    message = e.what();
  }
  log.say(message.empty() ? "(no error)" : message);
  log.fact("anomaly mode stops at the mul that made the NaN, before softmax ever sees it",
           message.find("'mul' produced NaN") != std::string::npos);

  log.say("The fix: a bool mask with tapegrad's one meaning of true (masked out), and masked_fill to write -inf. "
          "No multiplication by -inf, so no 0 * -inf.");
  Tensor hidden = causal_mask(kPositions).set_name("causal_mask");
  Tensor weights;
  {
    AnomalyGuard anomaly;
    weights = softmax(masked_fill(scores, hidden, -INFINITY), -1).set_name("weights");
  }
  log.show("weights", weights);
  Tensor fixed_loss = sum(mul(weights, scores)).set_name("loss");
  log.fact("the fixed loss is finite", std::isfinite(fixed_loss.item()));
  log.backward_from(fixed_loss);
  log.show("dL/dscores", scores.grad());
  log.fact("the scores' gradient is finite and 0 at every masked key",
           all_finite(scores.grad()) && all_equal_to(masked_fill(scores.grad(), visible_keys(), 0), 0));
}

}  // namespace tg::lessons
