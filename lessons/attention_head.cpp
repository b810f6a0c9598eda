// Lesson: one head of self-attention, op by op.
//   tokens (T,) ids -> x = E[tokens]                        (T,C): a row of the table E per token
//   x -> q = x Wq, k = x Wk, v = x Wv                       (T,dk)
//   scores  = (q k^T) / sqrt(dk)                             (T,T)
//   masked  = scores with -inf where key j > query i (causal) or key j is <pad>
//   weights = softmax(masked)                                each row sums to 1
//   out     = weights v                                      (T,dk)
// Its tokens are the student's to change (any of them may be <pad>); its settings: the sequence
// length T, d_k, the scale on or off, the masks on or off, and their fill.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/tape.h"
#include "lessons/catalog.h"
#include "lessons/values.h"
#include "ops/common/attention_options.h"
#include "ops/common/elementwise.h"
#include "ops/ops.h"

namespace tg::lessons {

namespace {
constexpr int64_t C = 4;  // a token's width: E's columns
const std::vector<std::string> kVocabulary = {"<pad>", "the", "cat", "sat", "on", "warm", "mat", "dog", "ran"};
constexpr int64_t kPad = 0;
const std::vector<int64_t> kSentence = {1, 2, 3, 4, 1, 5, 6};  // "the cat sat on the warm mat"

// The lesson's tokens for length T: the sentence's first T-1 words, then <pad>.
std::vector<int64_t> first_tokens(int64_t T) {
  std::vector<int64_t> ids(kSentence.begin(), kSentence.begin() + (T - 1));
  ids.push_back(kPad);
  return ids;
}

// True when every weight of a masked key is 0: key j > query i, or key j is <pad>.
bool masked_weights_are_zero(const Tensor& weights, const std::vector<bool>& pad) {  // (T,T)
  const int64_t T = weights.shape()[0];
  std::vector<double> w = values(weights);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j)
      if ((j > i || pad[j]) && w[i * T + j] != 0) return false;
  return true;
}
}  // namespace

void attention_head_lesson(LessonLog& log) {
  Generator gen(16);
  const auto T = static_cast<int64_t>(log.setting("T", 4, {2, 3, 4, 5, 6, 8}, "tokens in the sequence"));
  const auto dk = static_cast<int64_t>(log.setting("d_k", 4, {1, 2, 4, 8}, "the head size: columns of Wq, Wk and Wv"));
  const bool scaled = log.setting("scale", 1, {0, 1}, "divide the scores by sqrt(d_k) (1) or not (0)") == 1;
  const bool masks = log.setting("masks", 1, {0, 1}, "apply the causal and padding masks (1) or none (0)") == 1;
  const double fill = log.setting("fill", -INFINITY, {-INFINITY, -1e9, -10, 0}, "what the masks write into a score");
  Tensor tokens = log.tokens("tokens", first_tokens(T), kVocabulary);
  std::vector<std::string> words;
  std::vector<bool> pad;  // per key: true = <pad>
  for (double id : values(tokens)) words.push_back(kVocabulary[size_t(id)]), pad.push_back(id == kPad);
  log.say(fmt::format(
      "Self-attention lets every token look at the others. The sequence is T={} tokens: {}. A <pad> only fills "
      "the sequence out to its length (a batch's sequences share one), so no query may look at it.",
      T, fmt::join(words, " ")));
  Tensor E = log.input("E", randn({std::ssize(kVocabulary), C}, kF32, kCPU, gen).requires_grad_());
  Tensor x = embedding(tokens, E, kPad).set_name("x");
  log.label_axes("E", kVocabulary);
  log.label_axes("padding_mask", {}, words);
  log.label_axes("k^T", {}, words);
  for (const char* by_token : {"x", "q", "k", "v", "out"}) log.label_axes(by_token, words);  // (T, ...)
  for (const char* query_by_key : {"q k^T", "scores", "causal_mask", "causal_masked", "masked", "weights"})
    log.label_axes(query_by_key, words, words);
  log.show("tokens", tokens);
  log.say(fmt::format(
      "The embedding table E holds a row of C={} numbers per token of the vocabulary; x = E[tokens] looks up "
      "each token's row. Each token is then projected three ways: a query (what it looks for), a key (what it "
      "offers) and a value (what it passes on).",
      C));
  Tensor Wq = log.input("Wq", randn({C, dk}, kF32, kCPU, gen, 0, 0.5).requires_grad_());
  Tensor Wk = log.input("Wk", randn({C, dk}, kF32, kCPU, gen, 0, 0.5).requires_grad_());
  Tensor Wv = log.input("Wv", randn({C, dk}, kF32, kCPU, gen, 0, 0.5).requires_grad_());
  log.show("x", x);
  log.show("Wq", Wq);

  Tensor q = matmul(x, Wq).set_name("q");
  Tensor k = matmul(x, Wk).set_name("k");
  Tensor v = matmul(x, Wv).set_name("v");
  log.say("q = x Wq, k = x Wk, v = x Wv: three matmuls, three entries on the tape.");
  log.show("q", q);
  log.show("k", k);
  log.show("v", v);

  log.say(fmt::format(
      "The score of query i for key j is the dot product q_i . k_j, all at once as q k^T. Dividing by "
      "sqrt(d_k) = sqrt({}) = {:.4g} keeps the scores' spread near 1 whatever d_k is: a sum of d_k products of "
      "unit-variance numbers has variance d_k (the experiment `tapegrad experiment scaling` measures it).{}",
      dk, std::sqrt(double(dk)), scaled ? "" : " Here the scale is off (scale=0): the scores are q k^T itself."));
  Tensor kt = transpose(k, 0, 1).set_name("k^T");
  Tensor qk = matmul(q, kt).set_name("q k^T");
  Tensor scores = scaled ? mul(qk, scalar_like(qk, 1 / std::sqrt(double(dk))).set_name("1/sqrt(d_k)")).set_name("scores") : qk;
  log.show("scores", scores);

  Tensor masked = scores;
  if (masks) {
    log.say(fmt::format(
        "Masks are bool, true = masked out. The causal mask hides the future (key j > query i); the padding mask "
        "hides every <pad> key from every query. masked_fill writes {} there{}",
        fill, fill == -INFINITY ? ": exp(-inf) = 0, so a masked key gets weight exactly 0 after softmax."
                                : " (the lesson's own choice is -inf: compare the weights of the masked keys)."));
    Tensor causal = causal_mask(T).set_name("causal_mask");
    Tensor padding = tensor_bool(pad, {1, T}).set_name("padding_mask");  // (1,T): broadcasts over the queries
    log.show("causal_mask", causal);
    log.show("padding_mask", padding);
    const int64_t causal_fill = tape().next_position();  // the tape entry the next op records
    Tensor causal_masked = masked_fill(scores, causal, fill).set_name("causal_masked");
    masked = masked_fill(causal_masked, padding, fill).set_name("masked");
    log.show("masked", masked);
    log.say(fmt::format("The two masks are two tape entries, #{} (causal) and #{} (padding): backward passes no "
                        "gradient through either to a masked score.",
                        causal_fill, causal_fill + 1));
  } else {
    log.say("The masks are off (masks=0): every query sees every key, the future and the padding included.");
  }

  log.say(
      "softmax turns each row into weights that sum to 1. It first subtracts the row's max: exp(x - m) never "
      "overflows, and the result is unchanged because the factor exp(-m) cancels.");
  Tensor weights = softmax(masked, -1).set_name("weights");
  log.show("weights", weights);
  {
    NoGradGuard side_calculation;  // off the tape: these only check what the text says
    Tensor masked64 = to(masked.detach(), kF64);  // float64: scores + 1000 keeps every digit
    Tensor shifted = softmax(add(masked64, 1000.0), -1);
    Tensor naive = exp(add(scores.detach(), 100.0));
    log.fact("every row of the weights sums to 1",
             max_abs_diff(sum(weights.detach(), {1}), ones({T})) < 1e-6);
    if (masks)
      log.fact("masked keys get weight exactly 0 (the causal upper triangle and each <pad> column)",
               masked_weights_are_zero(weights, pad));
    log.fact("softmax(scores + 1000) equals softmax(scores): the max subtraction makes it stable",
             max_abs_diff(shifted, softmax(masked64, -1)) < 1e-12);
    log.fact("without it, exp(scores + 100) overflows float32 to inf", !all_finite(naive));
    log.fact("query 0 can see only key 0, so its weight there is 1",
             values(weights)[0] == 1.0);
  }

  log.say("The output of each query is the weighted sum of the values: out = weights v.");
  Tensor out = matmul(weights, v).set_name("out");
  log.show("out", out);
  log.fact("query 0's output is v_0 itself", max_abs_diff(slice(out.detach(), 0, 0, 1), slice(v.detach(), 0, 0, 1)) < 1e-6);

  log.say(
      "To see the gradients, take a scalar of the output, loss = mean(out^2), and run backward. Through "
      "masked_fill no gradient reaches a masked score: its rule is dL/dx = mask ? 0 : dL/dout.");
  Tensor loss = mean(mul(out, out)).set_name("loss");
  log.backward_from(loss);
  log.show("dL/dWq", Wq.grad());
  log.show("dL/dWk", Wk.grad());
  log.show("dL/dWv", Wv.grad());
  log.label_axes("dL/dE", kVocabulary);
  log.show("dL/dE", E.grad());
  log.say(
      "Backward through the lookup adds each position's gradient into its token's row of E: a token used twice "
      "(\"the\") gets the sum of both. embedding was told that <pad> is padding (padding_idx), so its row gets none.");
  log.fact("the <pad> row of dL/dE is 0: padding_idx holds it constant",
           all_equal_to(slice(E.grad(), 0, kPad, kPad + 1), 0));
}

}  // namespace tg::lessons
