// KvCache: the cached forward gives model.forward's logits at every position, for both archs,
// in float64 to 1e-12 and float32; it is inference only and bounded by max_len.
#include "core/grad_mode.h"
#include "ops/cat/cat.h"
#include "ops/reshape/reshape.h"
#include "test_util.h"
#include "train/kv_cache.h"

using namespace tg;
using train::KvCache;

namespace {

train::ModelConfig arch_lm(const std::string& arch, bool tie_weights = false) {
  return {.vocab_size = 11, .num_classes = 11, .max_len = 12, .d_model = 16, .heads = 4, .layers = 2, .ff = 32,
          .causal = true, .arch = arch, .tie_weights = tie_weights};
}

const std::vector<int64_t> kTokens = {5, 9, 6, 10, 7, 7, 8, 5, 6, 9};  // (T,) T = 10

// The cached logits of kTokens appended in chunks of these sizes, (T,C).
Tensor cached_logits(const train::TransformerModel& model, const std::vector<int64_t>& chunks) {
  KvCache cache(model);
  std::vector<Tensor> rows;
  size_t at = 0;
  for (int64_t n : chunks) {
    rows.push_back(cache.append(std::vector<int64_t>(kTokens.begin() + at, kTokens.begin() + at + n)));  // (n,C)
    at += n;
  }
  REQUIRE(at == kTokens.size());
  CHECK(cache.size() == std::ssize(kTokens));
  Tensor all = rows[0];
  for (size_t i = 1; i < rows.size(); ++i) all = cat({all, rows[i]}, 0);
  return all;
}

void check_cache_matches_forward(train::TransformerModel& model, double atol, double rtol) {
  model.eval();
  NoGradGuard no_grad;
  const auto T = std::ssize(kTokens);
  const Tensor full = reshape(model.forward(tensor_i64(kTokens, {1, T})), {T, model.config.num_classes});  // (T,C)
  test::require_close(cached_logits(model, std::vector<int64_t>(T, 1)), full, atol, rtol);  // one token at a time
  test::require_close(cached_logits(model, {T}), full, atol, rtol);                           // the whole prompt
  test::require_close(cached_logits(model, {3, 1, 4, 2}), full, atol, rtol);                  // a prompt, then chunks
}

}  // namespace

TEST_CASE("KvCache: cached and uncached logits agree at every position (f64 to 1e-12, f32 to 1e-5)") {
  for (const auto& variant : {std::pair{"gpt", false}, std::pair{"gpt", true}, std::pair{"encoder", false}}) {
    const char* arch = variant.first;  // not a structured binding: clang 14 cannot capture one
    const bool tied = variant.second;
    CAPTURE(arch);
    CAPTURE(tied);
    manual_seed(3);
    train::TransformerModel model(arch_lm(arch, tied));
    check_cache_matches_forward(model, 1e-5, 1e-5);
    model.to_(kF64);
    check_cache_matches_forward(model, 1e-12, 1e-12);
  }
}

TEST_CASE("KvCache: a new token sees every cached one (changing an early token changes the last logits)") {
  manual_seed(4);
  train::TransformerModel model(arch_lm("gpt"));
  model.eval();
  NoGradGuard no_grad;
  KvCache a(model), b(model);
  a.append(std::vector<int64_t>{5, 6, 7});
  b.append(std::vector<int64_t>{9, 6, 7});
  const Tensor la = a.append(std::vector<int64_t>{8}), lb = b.append(std::vector<int64_t>{8});
  CHECK(la.to_vector<float>() != lb.to_vector<float>());
}

TEST_CASE("KvCache: inference only, causal models only, within max_len") {
  manual_seed(5);
  train::TransformerModel model(arch_lm("gpt")), encoder([] {
    train::ModelConfig c = arch_lm("encoder");
    c.causal = false;
    return c;
  }());
  CHECK_THROWS_WITH_AS(KvCache{encoder}, doctest::Contains("KvCache: the model is not causal"), Error);
  KvCache cache(model);
  model.eval();
  CHECK_THROWS_WITH_AS(cache.append(std::vector<int64_t>{5}), doctest::Contains("inference only"), Error);
  NoGradGuard no_grad;
  model.train();
  CHECK_THROWS_WITH_AS(cache.append(std::vector<int64_t>{5}), doctest::Contains("the model is in training mode"), Error);
  model.eval();
  CHECK_THROWS_WITH_AS(cache.append(std::vector<int64_t>{}), doctest::Contains("expected ids (n,) int64 with n >= 1"),
                       Error);
  cache.append(std::vector<int64_t>(10, 5));
  CHECK_THROWS_WITH_AS(cache.append(std::vector<int64_t>(3, 5)),
                       doctest::Contains("3 new positions after the 10 cached pass the model's max_len (12)"), Error);
  CHECK(cache.size() == 10);  // a refused append leaves the cache as it was
  cache.append(std::vector<int64_t>(2, 5));
  CHECK(cache.size() == 12);
  cache.clear();
  CHECK(cache.size() == 0);
  CHECK(cache.append(std::vector<int64_t>(12, 5)).shape() == Shape{12, 11});
}
