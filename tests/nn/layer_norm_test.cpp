#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::LayerNorm: identity affine at start, the op's values, no parameters without affine") {
  nn::LayerNorm norm({4});
  CHECK(names_of(norm.state_dict()) == std::vector<std::string>{"weight", "bias"});
  require_values(norm.weight, {1, 1, 1, 1});
  require_values(norm.bias, {0, 0, 0, 0});
  // [1,2,3,4]: mean 2.5, biased variance 1.25; eps 1e-5: rstd = 1/sqrt(1.25001) = 0.894423613313.
  require_values(norm.forward(tensor({1, 2, 3, 4}, {1, 4})), {-1.341635420, -0.447211807, 0.447211807, 1.341635420},
                 1e-6);
  nn::LayerNorm plain({2, 3}, 1e-6, /*elementwise_affine=*/false);
  CHECK(plain.parameters().empty());
  CHECK(plain.forward(zeros({5, 2, 3})).shape() == Shape{5, 2, 3});
  CHECK_THROWS_WITH_AS(nn::LayerNorm({}), doctest::Contains("LayerNorm: needs a non-empty normalized_shape"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(nn::LayerNorm({3}, -1), doctest::Contains("eps -1"), tg::Error);
}

TEST_CASE("nn::LayerNorm: gradcheck of input, weight and bias") {
  nn::LayerNorm norm({3});
  norm.to_(kF64);
  randomize_parameters(norm, 1);
  require_module_gradcheck(norm, {rand64({2, 2, 3}, 2)},
                           [&](const std::vector<Tensor>& in) { return norm.forward(in[0]); });
}
