#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::Dropout: active in training, the identity after eval()") {
  nn::Dropout drop(0.5);
  Tensor x = ones({1000});
  CHECK(drop.is_training());
  std::vector<float> y = drop.forward(x).to_vector<float>();
  int64_t zeros_seen = 0;
  for (float v : y) {
    CHECK((v == 0 || v == 2));  // survivors scaled by 1 / (1 - p)
    zeros_seen += v == 0;
  }
  CHECK(zeros_seen > 400);
  CHECK(zeros_seen < 600);
  drop.eval();
  CHECK(drop.forward(x).impl() == x.impl());
  drop.train();
  CHECK(drop.forward(x).impl() != x.impl());
  CHECK_THROWS_WITH_AS(nn::Dropout(1.5), doctest::Contains("Dropout: p must be in [0, 1], got 1.5"), tg::Error);
}
