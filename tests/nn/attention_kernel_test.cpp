#include "nn/attention_kernel.h"
#include "nn_test_util.h"

using namespace tg;
using namespace tg::nn;
using namespace tg::test;

TEST_CASE("choose_attention_kernel: the fused op unless something asks for what only the composed ops give") {
  CHECK(choose_attention_kernel({}) == AttentionKernel::fused);
  CHECK(choose_attention_kernel({.fused = false}) == AttentionKernel::composed);
  CHECK(choose_attention_kernel({.composed_module = true}) == AttentionKernel::composed);
  CHECK(choose_attention_kernel({.need_weights = true}) == AttentionKernel::composed);
  CHECK(choose_attention_kernel({.additive_mask_requires_grad = true}) == AttentionKernel::composed);
  // Any one reason is enough, whatever the others say.
  CHECK(choose_attention_kernel({.fused = true, .composed_module = true, .need_weights = false}) ==
        AttentionKernel::composed);
}

TEST_CASE("run_attention: runs the kernel the spec was checked for") {
  const Tensor q = rand64({1, 2, 3, 4}, 1).detach(), k = rand64({1, 2, 5, 4}, 2).detach(),
               v = rand64({1, 2, 5, 3}, 3).detach();
  AttentionOptions o;
  o.need_weights = true;
  const AttentionResult composed = run_attention(AttentionSpec::check({"e"}, AttentionKernel::composed, q, k, v, o));
  CHECK(composed.weights.defined());  // only the composed ops form the weights
  o.need_weights = false;
  const AttentionResult fused = run_attention(AttentionSpec::check({"e"}, AttentionKernel::fused, q, k, v, o));
  CHECK_FALSE(fused.weights.defined());
  CHECK(max_abs_diff(fused.output, composed.output) < 1e-12);
}
