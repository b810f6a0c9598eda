#include <cmath>

#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::Embedding: lookup, the padding row starts at zero and gets no gradient") {
  nn::Embedding emb(5, 3, /*padding_idx=*/1);
  CHECK(names_of(emb.state_dict()) == std::vector<std::string>{"weight"});
  std::vector<float> w = emb.weight.to_vector<float>();
  CHECK(w[3] == 0);
  CHECK(w[4] == 0);
  CHECK(w[5] == 0);
  const std::vector<int64_t> ids{4, 1, 4, 0, 2, 1};
  Tensor out = emb.forward(tensor_i64(ids, {2, 3}));
  CHECK(out.shape() == Shape{2, 3, 3});
  std::vector<float> o = out.to_vector<float>();
  for (size_t i = 0; i < ids.size(); ++i)
    for (size_t c = 0; c < 3; ++c) CHECK(o[i * 3 + c] == w[ids[i] * 3 + c]);

  out.backward(ones({2, 3, 3}));
  // Row 4 was used twice, rows 0 and 2 once, row 3 never; row 1 is padding.
  require_values(emb.weight.grad(), {1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 2, 2, 2});
}

TEST_CASE("nn::Embedding: weights drawn from N(0, 1)") {
  nn::Embedding emb(1000, 64);
  std::vector<float> w = emb.weight.to_vector<float>();
  double mean = 0, var = 0;
  for (float x : w) mean += x;
  mean /= static_cast<double>(w.size());
  for (float x : w) var += (x - mean) * (x - mean);
  const double n = static_cast<double>(w.size()), std = std::sqrt(var / n);
  CHECK(std::abs(mean) < 5 / std::sqrt(n));
  CHECK(std::abs(std - 1) < 5 * std::sqrt(2 / (4 * n)));  // five standard errors of the sample std
}

TEST_CASE("nn::Embedding: errors") {
  CHECK_THROWS_WITH_AS(nn::Embedding(5, 3, 5),
                       doctest::Contains("Embedding: padding_idx must be -1 (none) or in [0, 5)"), tg::Error);
  CHECK_THROWS_WITH_AS(nn::Embedding(0, 3), doctest::Contains("Embedding: num_embeddings and embedding_dim must be "
                                                              "positive"), tg::Error);
  nn::Embedding emb(5, 3);
  CHECK_THROWS_AS(emb.forward(tensor_i64({5})), tg::Error);  // index out of range (the op's check)
}
