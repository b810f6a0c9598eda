// Lesson: multi-head attention, step by step, checked against nn::MultiHeadAttention.
//   B=1 batch, T tokens, E = d_model, NH heads of hs = E / NH
//   q = x Wq^T (B,T,E) -> reshape (B,T,NH,hs) -> transpose(1,2) (B,NH,T,hs); k, v likewise
//   weights = softmax(masked(q k^T / sqrt(hs)))   (B,NH,T,T): one attention pattern per head
//   heads   = weights v                           (B,NH,T,hs)
//   concat  = cat(head 0, ..., head NH-1)         (B,T,E)
//   out     = concat Wo^T                          (B,T,E)
// Its setting: the number of heads NH (a divisor of E).
#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "nn/multi_head_attention.h"
#include "ops/common/attention_options.h"
#include "ops/common/elementwise.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t B = 1, T = 3, E = 8;

// (B,T,E) -> (B,NH,T,hs): each head gets its own slice of the E channels.
Tensor split_heads(const Tensor& x, int64_t NH) { return transpose(reshape(x, {B, T, NH, E / NH}), 1, 2); }
}  // namespace

void multi_head_lesson(LessonLog& log) {
  Generator gen(16);
  const auto NH = static_cast<int64_t>(log.setting("heads", 2, {1, 2, 4, 8}, "the number of heads NH: hs = E / NH"));
  const int64_t hs = E / NH;
  nn::MultiHeadAttention mha(E, NH, /*dropout=*/0, /*bias=*/false);
  mha.reset_parameters(gen);
  const Tensor &Wq = mha.q_proj->weight, &Wk = mha.k_proj->weight, &Wv = mha.v_proj->weight,
               &Wo = mha.out_proj->weight;
  log.parameter("Wq", Wq), log.parameter("Wk", Wk), log.parameter("Wv", Wv), log.parameter("Wo", Wo);
  log.say(fmt::format(
      "One head computes one attention pattern. Multi-head attention runs NH={} heads side by side, each on its "
      "own hs = E / NH = {} channels of the d_model E={} channels, so the cost stays that of one head of width E. "
      "The projections are nn::MultiHeadAttention's (Linear: y = x W^T, Xavier-initialised, no bias here).",
      NH, hs, E));
  Tensor x = log.input("x", randn({B, T, E}, kF32, kCPU, gen));
  log.show("x", x);

  Tensor q = matmul(x, transpose(Wq, 0, 1)).set_name("q");
  Tensor k = matmul(x, transpose(Wk, 0, 1)).set_name("k");
  Tensor v = matmul(x, transpose(Wv, 0, 1)).set_name("v");
  log.say("The projections, as in one head but E wide: q = x Wq^T, k = x Wk^T, v = x Wv^T, each (B,T,E).");
  log.show("q", q);

  log.say(fmt::format(
      "Split into heads: reshape (B,T,E) to (B,T,NH,hs) and swap T and NH, giving (B,NH,T,hs) = ({},{},{},{}). "
      "Every op below treats the head dimension as one more batch dimension.",
      B, NH, T, hs));
  Tensor qh = split_heads(q, NH).set_name("q heads");
  Tensor kh = split_heads(k, NH).set_name("k heads");
  Tensor vh = split_heads(v, NH).set_name("v heads");
  log.show("q heads", qh);

  log.say(fmt::format("Scores per head, scaled by 1/sqrt(hs) = 1/sqrt({}) (the head size, not E), the causal mask "
                      "broadcast over the heads, softmax: one (T,T) pattern per head.",
                      hs));
  Tensor scale = scalar_like(qh, 1 / std::sqrt(double(hs))).set_name("1/sqrt(d_k)");  // d_k is the head size hs
  Tensor scores = mul(matmul(qh, transpose(kh, 2, 3)), scale).set_name("scores");
  Tensor masked = masked_fill(scores, causal_mask(T), -INFINITY).set_name("masked");
  Tensor weights = softmax(masked, -1).set_name("weights");
  log.show("weights", weights);
  Tensor heads = matmul(weights, vh).set_name("heads");
  log.show("heads", heads);

  log.say(
      "Concatenate the heads back into E channels (cat along the last dim of each head's (B,T,hs) output) and mix "
      "them with the output projection W_O: without it each output channel would only ever see one head.");
  std::vector<Tensor> per_head = split(heads, 1, 1);  // NH tensors (B,1,T,hs)
  for (Tensor& h : per_head) h = squeeze(h, 1);        // (B,T,hs)
  Tensor concat = cat(per_head, -1).set_name("concat");
  log.show("concat", concat);
  Tensor out = matmul(concat, transpose(Wo, 0, 1)).set_name("out");
  log.show("out", out);
  {
    NoGradGuard side_calculation;
    Tensor reshaped = reshape(transpose(heads.detach(), 1, 2), {B, T, E});
    log.fact("cat of the heads equals transpose(1,2) + reshape, the way the module does it",
             max_abs_diff(concat, reshaped) == 0);
    Tensor module_out = mha.forward(x, x, x, {.is_causal = true, .fused = false}).output;
    log.fact("the step-by-step output equals nn::MultiHeadAttention's (is_causal) to 1e-6",
             max_abs_diff(out, module_out) < 1e-6);
    Tensor fused_out = mha.forward(x, x, x, {.is_causal = true}).output;
    log.fact("and equals the fused attention op's output to 1e-5", max_abs_diff(out, fused_out) < 1e-5);
  }

  log.say("Backward from loss = mean(out^2): the gradient of each head's slice flows back through cat into that "
          "head alone, and the four projection weights receive theirs.");
  log.backward_from(mean(mul(out, out)).set_name("loss"));
  log.show("dL/dWo", Wo.grad());
  log.show("dL/dWq", Wq.grad());
}

}  // namespace tg::lessons
