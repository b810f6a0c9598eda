// TransformerModel: shapes, names, the causal and padding masks, and clear errors.
#include <algorithm>

#include "test_util.h"
#include "train/model.h"

using namespace tg;
using train::ModelConfig;
using train::TransformerModel;

namespace {

ModelConfig small(bool causal) {
  return {.vocab_size = 9, .num_classes = 7, .max_len = 6, .d_model = 8, .heads = 2, .layers = 2, .ff = 16,
          .causal = causal};
}

std::vector<float> row(const Tensor& logits, int64_t b, int64_t t) {  // logits (B,T,C) -> logits[b, t, :]
  const int64_t T = logits.size(1), C = logits.size(2);
  std::vector<float> all = logits.to_vector<float>();
  return {all.begin() + (b * T + t) * C, all.begin() + (b * T + t + 1) * C};
}

}  // namespace

TEST_CASE("TransformerModel: logits (B,T,C) and PyTorch-style parameter names") {
  manual_seed(1);
  TransformerModel model(small(false));
  Tensor logits = model.forward(tensor_i64({5, 6, 7, 8, 3, 4}, {2, 3}));
  CHECK(logits.shape() == Shape{2, 3, 7});
  CHECK(logits.dtype() == kF32);
  std::vector<std::string> names;
  for (const auto& [name, t] : model.named_parameters()) names.push_back(name);
  for (const char* expected : {"embedding.weight", "encoder.layers.0.self_attn.q_proj.weight",
                               "encoder.layers.1.linear2.bias", "encoder.norm.weight", "head.weight", "head.bias"}) {
    CAPTURE(expected);
    CHECK(std::find(names.begin(), names.end(), expected) != names.end());
  }
  // the sinusoidal table is a function of the shape, not a parameter or a checkpoint entry
  for (const auto& [name, t] : model.state_dict()) CHECK(name.find("pos_encoding") == std::string::npos);
}

TEST_CASE("TransformerModel: a causal model's position t does not see later positions") {
  manual_seed(2);
  TransformerModel model(small(true));
  model.eval();
  Tensor a = model.forward(tensor_i64({5, 6, 7, 8}, {1, 4}));
  Tensor b = model.forward(tensor_i64({5, 6, 8, 5}, {1, 4}));  // positions 2 and 3 changed
  for (int64_t t : {0, 1}) CHECK(row(a, 0, t) == row(b, 0, t));
  CHECK(row(a, 0, 2) != row(b, 0, 2));
  // without the causal mask, position 0 sees position 3
  manual_seed(2);
  TransformerModel bidirectional(small(false));
  bidirectional.eval();
  CHECK(row(bidirectional.forward(tensor_i64({5, 6, 7, 8}, {1, 4})), 0, 0) !=
        row(bidirectional.forward(tensor_i64({5, 6, 7, 5}, {1, 4})), 0, 0));
}

TEST_CASE("TransformerModel: padded positions do not change the real positions' logits") {
  manual_seed(3);
  TransformerModel model(small(false));
  model.eval();
  Tensor mask = tensor_bool({false, false, true, true}, {1, 4});
  Tensor a = model.forward(tensor_i64({5, 6, 0, 0}, {1, 4}), mask);
  Tensor b = model.forward(tensor_i64({5, 6, 7, 8}, {1, 4}), mask);  // other ids under the mask
  for (int64_t t : {0, 1}) {
    std::vector<float> ra = row(a, 0, t), rb = row(b, 0, t);
    for (size_t c = 0; c < ra.size(); ++c) CHECK(ra[c] == doctest::Approx(rb[c]).epsilon(1e-6));
  }
}

TEST_CASE("TransformerModel: errors name the model and the problem") {
  ModelConfig bad = small(false);
  bad.heads = 3;  // 8 % 3 != 0
  CHECK_THROWS_WITH_AS(TransformerModel{bad}, doctest::Contains("d_model (8) must be a positive multiple of heads (3)"),
                       Error);
  bad = small(false);
  bad.num_classes = 0;
  CHECK_THROWS_WITH_AS(TransformerModel{bad}, doctest::Contains("TransformerModel: num_classes must be in [1, 16777216], "
                                                                "got 0"), Error);
  TransformerModel model(small(false));
  CHECK_THROWS_WITH_AS(model.forward(tensor({1, 2}, {1, 2})), doctest::Contains("expected inputs (B,T) int64"), Error);
  // longer than max_len: the positional encoding says so
  CHECK_THROWS_WITH_AS(model.forward(tensor_i64(std::vector<int64_t>(7, 5), {1, 7})), doctest::Contains("max_len=6"),
                       Error);
}

TEST_CASE("TransformerModel: sizes past the limits are refused before anything is allocated") {
  ModelConfig huge = small(false);
  huge.d_model = int64_t{1} << 20, huge.heads = 1;
  CHECK_THROWS_WITH_AS(TransformerModel{huge}, doctest::Contains("d_model must be in [1, 16384], got 1048576"), Error);
  huge = small(false);
  huge.max_len = 4096, huge.d_model = 8192, huge.heads = 1;
  CHECK_THROWS_WITH_AS(TransformerModel{huge}, doctest::Contains("max_len * d_model must be <= 16777216, got 4096 * "
                                                                 "8192"), Error);
}

TEST_CASE("TransformerModel: parameter_count gives the built model's count, and check_weights_fit the model's size") {
  for (ModelConfig c : {small(false), small(true)}) {
    c.layers = 3, c.ff = 24;
    TransformerModel model(c);
    int64_t built = 0;
    for (const auto& [name, t] : model.named_parameters()) built += t.numel();
    CHECK(train::parameter_count(c) == built);
    CHECK_NOTHROW(train::check_weights_fit(c, model.state_dict()));
    ModelConfig deeper = c;
    deeper.layers = 4;
    CHECK_THROWS_WITH_AS(train::check_weights_fit(deeper, model.state_dict()),
                         doctest::Contains(fmt::format("has {} parameters, but the weights hold {} values",
                                                       train::parameter_count(deeper), built).c_str()), Error);
    ModelConfig wider = c;
    wider.vocab_size += 1;
    CHECK_THROWS_WITH_AS(train::check_weights_fit(wider, model.state_dict()),
                         doctest::Contains("embedding.weight should be"), Error);
  }
}

TEST_CASE("TransformerModel: attention_maps gives every layer's (NH,T,T) self-attention weights, in eval mode") {
  for (bool causal : {false, true}) {
    CAPTURE(causal);
    manual_seed(4);
    ModelConfig config = small(causal);
    config.dropout = 0.5;
    TransformerModel model(config);
    const Tensor tokens = tensor_i64({5, 6, 7, 8, 3}, {5});
    const std::vector<Tensor> maps = model.attention_maps(tokens);
    CHECK(model.is_training());  // left as it was
    REQUIRE(maps.size() == 2);

    // The same weights layer by layer from the encoder's parts: layer l attends over norm1 of
    // what the layers before it made (pre-LN), without dropout.
    model.eval();
    Tensor x = model.pos_encoding->forward(model.embedding->forward(tensor_i64({5, 6, 7, 8, 3}, {1, 5})));
    for (size_t l = 0; l < maps.size(); ++l) {
      CAPTURE(l);
      const auto& layer = model.encoder->layers[l];
      const Tensor normed = layer->norm1->forward(x);
      const Tensor expected =
          layer->self_attn->forward(normed, normed, normed, {.is_causal = causal, .need_weights = true}).weights;
      CHECK(maps[l].shape() == Shape{2, 5, 5});
      CHECK(maps[l].to_vector<float>() == expected.to_vector<float>());
      const std::vector<float> w = maps[l].to_vector<float>();
      for (int64_t row = 0; row < 2 * 5; ++row) {
        float sum = 0;
        for (int64_t k = 0; k < 5; ++k) sum += w[row * 5 + k];
        CHECK(sum == doctest::Approx(1).epsilon(1e-5));
        if (causal)
          for (int64_t k = row % 5 + 1; k < 5; ++k) CHECK(w[row * 5 + k] == 0);  // no later key
      }
      x = layer->forward(x, {.is_causal = causal});
    }
  }
  TransformerModel model(small(false));
  CHECK_THROWS_WITH_AS(model.attention_maps(tensor_i64({5, 6}, {1, 2})),
                       doctest::Contains("attention_maps: expected tokens (T,) int64"), Error);
}
