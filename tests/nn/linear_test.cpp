#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::Linear: hand-worked forward, shapes, initialisation") {
  nn::Linear lin(2, 3);
  CHECK(names_of(lin.named_parameters()) == std::vector<std::string>{"weight", "bias"});
  CHECK(lin.weight.shape() == Shape{3, 2});
  require_values(lin.bias, {0, 0, 0});
  // Xavier uniform: |w| <= sqrt(6 / (2 + 3)).
  for (float w : lin.weight.to_vector<float>()) CHECK(std::abs(w) <= std::sqrt(6.0 / 5));

  // W = [[1,2],[3,4],[5,6]], b = (0.5,-1,2), x = (1,-1): W x = (-1,-1,-1), + b = (-0.5,-2,1).
  lin.load_state_dict({{"weight", tensor({1, 2, 3, 4, 5, 6}, {3, 2})}, {"bias", tensor({0.5, -1, 2})}});
  require_values(lin.forward(tensor({1, -1}, {1, 2})), {-0.5, -2, 1});
  // Any leading dims; a vector input.
  CHECK(lin.forward(zeros({4, 5, 2})).shape() == Shape{4, 5, 3});
  require_values(lin.forward(tensor({1, -1})), {-0.5, -2, 1});

  nn::Linear plain(2, 3, /*bias=*/false);
  CHECK(names_of(plain.state_dict()) == std::vector<std::string>{"weight"});
  CHECK_FALSE(plain.bias.defined());
}

TEST_CASE("nn::Linear: gradcheck of input, weight and bias") {
  nn::Linear lin(3, 2);
  lin.to_(kF64);
  randomize_parameters(lin, 1);
  auto fwd = [&](const std::vector<Tensor>& in) { return lin.forward(in[0]); };
  require_module_gradcheck(lin, {rand64({2, 4, 3}, 2)}, fwd);
  require_module_gradcheck(lin, {noncontig64({3, 3}, 3)}, fwd);
  nn::Linear plain(3, 2, false);
  plain.to_(kF64);
  require_module_gradcheck(plain, {rand64({3}, 4)},
                           [&](const std::vector<Tensor>& in) { return plain.forward(in[0]); });
}

TEST_CASE("nn::Linear: errors") {
  nn::Linear lin(3, 2);
  CHECK_THROWS_WITH_AS(lin.forward(zeros({2, 4})), doctest::Contains("Linear: expected x (..., 3) float32, got (2,4)"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(lin.forward(zeros({2, 3}, kF64)), doctest::Contains("Linear: expected x (..., 3) float32"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(nn::Linear(0, 2), doctest::Contains("Linear: in_features and out_features must be positive"),
                       tg::Error);
}
