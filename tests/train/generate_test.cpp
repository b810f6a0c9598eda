// generate: greedy, temperature, top-k and top-p sampling from a causal model, with and without
// the key/value cache, and a stop sequence.
#include <cmath>

#include "test_util.h"
#include "train/generate.h"

using namespace tg;
using train::GenerateOptions;

namespace {

train::ModelConfig lm(bool causal = true) {
  return {.vocab_size = 8, .num_classes = 8, .max_len = 4, .d_model = 8, .heads = 2, .layers = 1, .ff = 16,
          .causal = causal};
}

}  // namespace

TEST_CASE("generate: greedy picks the argmax, sampling follows the seed, min_id is respected") {
  manual_seed(5);
  train::TransformerModel model(lm());
  const std::vector<int64_t> prompt = {5, 6};
  const auto greedy = train::generate(model, prompt, {.max_new_tokens = 6});
  REQUIRE(greedy.size() == 8);  // longer than max_len: the context is the last 4 ids
  CHECK(std::equal(prompt.begin(), prompt.end(), greedy.begin()));
  CHECK(train::generate(model, prompt, {.max_new_tokens = 6}) == greedy);
  // the greedy choice after the prompt is the argmax of the last position's logits
  NoGradGuard no_grad;
  model.eval();
  std::vector<float> logits = model.forward(tensor_i64(prompt, {1, 2})).to_vector<float>();
  CHECK(greedy[2] == std::max_element(logits.begin() + 8, logits.end()) - (logits.begin() + 8));

  const GenerateOptions hot{.max_new_tokens = 20, .temperature = 2, .seed = 3, .min_id = 5};
  const auto a = train::generate(model, prompt, hot);
  CHECK(a == train::generate(model, prompt, hot));
  for (int64_t id : a) CHECK(id >= 5);
  GenerateOptions other = hot;
  other.seed = 4;
  CHECK(train::generate(model, prompt, other) != a);
  CHECK(model.is_training() == false);  // the mode is restored: it was eval
}

TEST_CASE("generate: errors") {
  train::TransformerModel causal(lm()), encoder(lm(false));
  CHECK_THROWS_WITH_AS(train::generate(encoder, {5}, {}), doctest::Contains("generate: the model is not causal"), Error);
  CHECK_THROWS_WITH_AS(train::generate(causal, {}, {}), doctest::Contains("the prompt is empty"), Error);
  CHECK_THROWS_WITH_AS(train::generate(causal, {9}, {}), doctest::Contains("prompt id 9 is outside the vocabulary"),
                       Error);
  CHECK_THROWS_WITH_AS(train::generate(causal, {5}, {.min_id = 8}), doctest::Contains("min_id must be in [0, 8)"),
                       Error);
}

namespace {

// How often pick_next chooses each candidate as u runs over a fine grid of [0, 1).
std::vector<int> picks(const std::vector<double>& logits, const GenerateOptions& options, int draws = 1000) {
  std::vector<int> count(logits.size());
  for (int i = 0; i < draws; ++i) ++count[train::pick_next(logits, options, (i + 0.5) / draws)];
  return count;
}

}  // namespace

TEST_CASE("pick_next: greedy is the argmax whatever u, temperature follows the softmax") {
  const std::vector<double> logits = {0.1, 2.0, -1, 1.5, 0.3, 1.9};
  for (double u : {0.0, 0.3, 0.999}) CHECK(train::pick_next(logits, {}, u) == 1);
  const std::vector<int> count = picks(logits, {.temperature = 1});
  double total = 0;
  for (double l : logits) total += std::exp(l);
  for (size_t c = 0; c < logits.size(); ++c) CHECK(std::abs(count[c] - 1000 * std::exp(logits[c]) / total) <= 1);
}

TEST_CASE("pick_next: top-k never picks outside the k likeliest, and picks each of them") {
  const std::vector<double> logits = {0.1, 2.0, -1, 1.5, 0.3, 1.9};  // the likeliest: 1, 5, 3, 4, 0, 2
  const std::vector<int> count = picks(logits, {.temperature = 1.5, .top_k = 3});
  CHECK(count[1] > 0);
  CHECK(count[5] > 0);
  CHECK(count[3] > 0);
  CHECK(count[0] + count[2] + count[4] == 0);
  CHECK(picks(logits, {.temperature = 1, .top_k = 1}) == std::vector<int>{0, 1000, 0, 0, 0, 0});
}

TEST_CASE("pick_next: top-p keeps the smallest set of likeliest candidates reaching p, renormalised") {
  // probabilities 0.05 0.5 0.1 0.05 0.3 (temperature 1): by likelihood 1 (0.5), 4 (0.3), 2 (0.1), ...
  const std::vector<double> logits = {std::log(0.05), std::log(0.5), std::log(0.1), std::log(0.05), std::log(0.3)};
  std::vector<int> count = picks(logits, {.temperature = 1, .top_p = 0.75});  // 0.5 < 0.75 <= 0.8: {1, 4}
  CHECK(std::abs(count[1] - 1000 * 0.5 / 0.8) <= 1);  // the grid of u rounds each count by at most 1
  CHECK(std::abs(count[4] - 1000 * 0.3 / 0.8) <= 1);
  CHECK(count[0] + count[2] + count[3] == 0);
  count = picks(logits, {.temperature = 1, .top_p = 0.85});  // {1, 4, 2}
  CHECK(count[2] > 0);
  CHECK(count[0] + count[3] == 0);
  CHECK(picks(logits, {.temperature = 1, .top_p = 0.1}) == std::vector<int>{0, 1000, 0, 0, 0});  // the likeliest always
  count = picks(logits, {.temperature = 1, .top_k = 2, .top_p = 0.95});  // top-k first: {1, 4}
  CHECK(count[1] + count[4] == 1000);
}

TEST_CASE("generate: the cached and uncached paths give the same ids, greedy and sampled, past max_len too") {
  for (const char* arch : {"encoder", "gpt"}) {
    CAPTURE(arch);
    manual_seed(7);
    train::ModelConfig config = lm();
    config.arch = arch;
    train::TransformerModel model(config);
    for (const GenerateOptions& base : {GenerateOptions{.max_new_tokens = 9},
                                        GenerateOptions{.max_new_tokens = 9, .temperature = 1.3, .top_k = 5,
                                                        .top_p = 0.9, .seed = 11}}) {
      GenerateOptions uncached = base;
      uncached.use_cache = false;
      const auto ids = train::generate(model, {5, 6, 7}, base);  // 12 ids, max_len 4: the window slides
      CHECK(ids.size() == 12);
      CHECK(train::generate(model, {5, 6, 7}, uncached) == ids);
      CHECK(train::generate(model, {5, 6, 7}, base) == ids);  // the same seed, the same ids
    }
  }
}

TEST_CASE("generate: a stop sequence ends the generation and is left out") {
  manual_seed(8);
  train::TransformerModel model(lm());
  const std::vector<int64_t> prompt = {5, 6};
  const auto ids = train::generate(model, prompt, {.max_new_tokens = 10, .temperature = 2, .seed = 1});
  const std::vector<int64_t> stop = {ids[4], ids[5]};
  auto first = ids.begin() + 2;  // where stop first ends within the new ids
  while (!(first[0] == stop[0] && first[1] == stop[1])) ++first;
  const auto stopped = train::generate(model, prompt, {.max_new_tokens = 10, .temperature = 2, .seed = 1, .stop = stop});
  CHECK(stopped == std::vector<int64_t>(ids.begin(), first));
}

TEST_CASE("generate: sampling options out of range name the option and its limit") {
  train::TransformerModel model(lm());
  const auto fails = [&](const GenerateOptions& o, const char* message) {
    CHECK_THROWS_WITH_AS(train::generate(model, {5}, o), doctest::Contains(message), Error);
  };
  fails({.temperature = std::nan("")}, "temperature must be a finite number >= 0, got nan");
  fails({.temperature = 1, .top_k = 9}, "top_k must be in [0, 8]");
  fails({.temperature = 1, .top_k = 4, .min_id = 5}, "top_k must be in [0, 3]");
  fails({.temperature = 1, .top_p = 0}, "top_p must be in (0, 1], got 0");
  fails({.temperature = 1, .top_p = 1.5}, "top_p must be in (0, 1], got 1.5");
  fails({.top_k = 2}, "top_k and top_p restrict sampling: they need temperature > 0");
  fails({.max_new_tokens = -1}, "max_new_tokens must be >= 0, got -1");
  fails({.min_id = 5, .stop = {3}}, "stop id 3 is outside the ids the model can produce [5, 8)");
}
