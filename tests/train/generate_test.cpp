// generate: greedy and temperature sampling from a causal model.
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
