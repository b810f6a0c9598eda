#include "apps/attention_example.h"

#include <cmath>
#include <string>

#include "core/factories.h"
#include "core/tape.h"
#include "ops/ops.h"

namespace tg::cli {

AttentionExample attention_example(uint64_t seed) {
  constexpr int64_t T = kExampleTokens, C = kExampleWidth, hs = kExampleHeadSize;
  Generator gen(seed);
  AttentionExample ex;
  ex.x = randn({T, C}, kF32, kCPU, gen).set_name("x");
  ex.Wq = randn({C, hs}, kF32, kCPU, gen, 0, 0.5).requires_grad_().set_name("Wq");
  ex.Wk = randn({C, hs}, kF32, kCPU, gen, 0, 0.5).requires_grad_().set_name("Wk");
  ex.Wv = randn({C, hs}, kF32, kCPU, gen, 0, 0.5).requires_grad_().set_name("Wv");
  ex.mask = causal_mask(T).set_name("causal_mask");

  tape().clear();  // number the entries from 0
  const auto step = [&](Tensor t, const std::string& name) {
    ex.steps.push_back(t.set_name(name));
    return t;
  };
  Tensor q = step(matmul(ex.x, ex.Wq), "q");
  Tensor k = step(matmul(ex.x, ex.Wk), "k");
  Tensor v = step(matmul(ex.x, ex.Wv), "v");
  Tensor kt = step(transpose(k, 0, 1), "k^T");
  Tensor qk = step(matmul(q, kt), "q k^T");
  Tensor scores = step(mul(qk, 1 / std::sqrt(static_cast<double>(hs))), "scores");
  Tensor masked = step(masked_fill(scores, ex.mask, -INFINITY), "masked");
  Tensor weights = step(softmax(masked, -1), "weights");
  Tensor out = step(matmul(weights, v), "out");
  Tensor sq = step(mul(out, out), "out^2");
  ex.loss = step(mean(sq), "loss");
  return ex;
}

}  // namespace tg::cli
