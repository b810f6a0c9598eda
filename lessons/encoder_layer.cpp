// Lesson: one Transformer encoder layer, step by step, checked against nn::EncoderLayer.
//   post-LN (the original Transformer): h = norm1(x + sa(x));  y = norm2(h + ff(h))
//   pre-LN  (GPT-2):                    h = x + sa(norm1(x));  y = h + ff(norm2(h))
//   sa = self-attention, ff(x) = linear2(relu(linear1(x))); dropout after each, in training only
// Settings: T tokens, a causal mask, gelu for relu, and which of the two layers backward runs through.
#include <cmath>

#include <fmt/format.h>

#include "core/factories.h"
#include "core/grad_mode.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "nn/encoder_layer.h"
#include "nn/feed_forward.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t kBatch = 1, E = 4, NH = 2, FF = 8;

// The student's choices, which the step-by-step code and the module both follow.
struct Choices {
  bool causal = false;
  nn::Activation activation = nn::Activation::relu;
};

Tensor self_attention(const nn::EncoderLayer& layer, const Tensor& x, const Choices& c) {
  return layer.self_attn->forward(x, x, x, {.is_causal = c.causal, .fused = false}).output;
}
Tensor feed_forward(const nn::EncoderLayer& layer, const Tensor& x, const Choices& c) {
  return layer.linear2->forward(nn::activate(layer.linear1->forward(x), c.activation));
}

// The largest |mean| and |variance - 1| over the rows of x (B,T,E).
std::pair<double, double> row_stats(const Tensor& x) {
  std::vector<double> v = values(x);
  double worst_mean = 0, worst_var = 0;
  for (int64_t r = 0; r < kBatch * x.size(1); ++r) {
    double m = 0, var = 0;
    for (int64_t c = 0; c < E; ++c) m += v[r * E + c] / E;
    for (int64_t c = 0; c < E; ++c) var += (v[r * E + c] - m) * (v[r * E + c] - m) / E;
    worst_mean = std::max(worst_mean, std::abs(m)), worst_var = std::max(worst_var, std::abs(var - 1));
  }
  return {worst_mean, worst_var};
}
}  // namespace

void encoder_layer_lesson(LessonLog& log) {
  Generator gen(16);
  const auto T = static_cast<int64_t>(log.setting("T", 3, {2, 3, 4, 5, 6}, "tokens in the sequence"));
  Choices c;
  c.causal = log.setting("causal", 0, {0, 1}, "each token attends only to itself and earlier ones (1) or to all (0)") == 1;
  c.activation = log.setting("gelu", 0, {0, 1}, "the feed-forward activation: gelu (1) or relu (0)") == 1
                     ? nn::Activation::gelu
                     : nn::Activation::relu;
  const bool backward_pre = log.setting("norm_first", 0, {0, 1}, "backward runs through the pre-LN layer (1) or the "
                                                                 "post-LN one (0)") == 1;
  const nn::EncoderLayerConfig config{.d_model = E, .nhead = NH, .dim_feedforward = FF, .dropout = 0.1,
                                      .activation = c.activation, .norm_first = false};
  const nn::MhaOptions masks{.is_causal = c.causal};  // for the module's own forward
  nn::EncoderLayer post(config);
  post.reset_parameters(gen);
  const char* activation = c.activation == nn::Activation::gelu ? "gelu" : "relu";
  log.say(fmt::format(
      "An encoder layer is self-attention{} and a feed-forward network (E={} -> {} -> {}, {}), each wrapped in a "
      "residual connection (x + f(x): the gradient has a path around f) and a LayerNorm (each token's vector "
      "rescaled to mean 0, variance 1, then weight and bias). Dropout (p = 0.1) follows each sub-block in "
      "training only.",
      c.causal ? " with a causal mask (token i sees tokens 0..i)" : "", E, FF, E, activation));
  Tensor x = log.input("x", randn({kBatch, T, E}, kF32, kCPU, gen));
  log.show("x", x);

  {
    NoGradGuard side_calculation;
    Tensor train_a = post.forward(x, masks), train_b = post.forward(x, masks);
    post.eval();
    Tensor eval_a = post.forward(x, masks), eval_b = post.forward(x, masks);
    log.say("First, dropout: a layer in training mode (the default) draws new dropout masks on every call; "
            "eval() turns dropout off, and the layer becomes a function.");
    log.fact("in training mode two calls on the same x differ (dropout)", max_abs_diff(train_a, train_b) > 0);
    log.fact("after eval() two calls give the same output", max_abs_diff(eval_a, eval_b) == 0);
  }

  log.say("Post-LN, as in 'Attention Is All You Need': the LayerNorm comes after each residual sum.");
  Tensor sa = self_attention(post, x, c).set_name("sa");
  log.show("sa", sa);
  Tensor sum1 = add(x, sa).set_name("x + sa");
  Tensor h = post.norm1->forward(sum1).set_name("h");
  log.show("h", h);
  Tensor ff = feed_forward(post, h, c).set_name("ff");
  log.show("ff", ff);
  Tensor y = post.norm2->forward(add(h, ff)).set_name("y");
  log.show("y", y);
  {
    NoGradGuard side_calculation;
    auto [worst_mean, worst_var] = row_stats(y);
    log.fact("each token of the post-LN output has mean 0 and variance 1 (to 1e-4; LayerNorm's weight is 1, bias 0)",
             worst_mean < 1e-4 && worst_var < 1e-3);
    log.fact("the step-by-step output equals nn::EncoderLayer's (eval) to 1e-5",
             max_abs_diff(y, post.forward(x, masks)) < 1e-5);
  }

  log.say("Pre-LN, as in GPT-2: the LayerNorm comes first inside each branch and the residual stream x + ... is "
          "never normalised, so the gradient reaches early layers undamped; deep stacks train more stably.");
  nn::EncoderLayerConfig pre_config = config;
  pre_config.norm_first = true;
  nn::EncoderLayer pre(pre_config);
  pre.load_state_dict(post.state_dict());
  pre.eval();
  Tensor h_pre = add(x, self_attention(pre, pre.norm1->forward(x), c)).set_name("h (pre-LN)");
  Tensor y_pre = add(h_pre, feed_forward(pre, pre.norm2->forward(h_pre), c)).set_name("y (pre-LN)");
  log.show("y (pre-LN)", y_pre);
  {
    NoGradGuard side_calculation;
    log.fact("the pre-LN steps equal nn::EncoderLayer(norm_first = true) to 1e-5",
             max_abs_diff(y_pre, pre.forward(x, masks)) < 1e-5);
    log.fact("the pre-LN output is not normalised: some token's variance is off 1 by more than 0.1",
             row_stats(y_pre).second > 0.1);
  }

  const nn::EncoderLayer& through = backward_pre ? pre : post;
  const Tensor& out = backward_pre ? y_pre : y;
  log.say(fmt::format("Backward from loss = mean(y^2) through the {} layer. Watch the residual add: it passes the "
                      "same gradient to both of its inputs.",
                      backward_pre ? "pre-LN" : "post-LN"));
  log.backward_from(mean(mul(out, out)).set_name("loss"));
  log.show("dL/dnorm1.weight", through.norm1->weight.grad());
  log.show("dL/dlinear1.weight", through.linear1->weight.grad());
}

}  // namespace tg::lessons
