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

TEST_CASE("nn::Linear: forward_together records each layer's own entry, with the bits of its forward") {
  // Three layers reading one x (as the q, k and v projections do), large enough that their products
  // share the threads: each output, and each gradient after backward, equals that layer's forward
  // run alone, exactly; the tape holds one linear entry per layer, in order, in its own scope.
  struct Three : nn::Module {
    std::shared_ptr<nn::Linear> q, k, v;
    Three() : Module("Three") {
      q = register_module("q", std::make_shared<nn::Linear>(64, 96));
      k = register_module("k", std::make_shared<nn::Linear>(64, 80, false));
      v = register_module("v", std::make_shared<nn::Linear>(64, 64));
    }
    std::vector<const nn::Linear*> layers() const { return {q.get(), k.get(), v.get()}; }
  };
  Three together, alone;
  randomize_parameters(together, 5);
  alone.load_state_dict(together.state_dict());
  manual_seed(6);
  const Tensor x_data = randn({3, 200, 64});
  const Tensor x1 = x_data.detach().requires_grad_(), x2 = x_data.detach().requires_grad_();
  tape().clear();
  const TensorList ys = nn::Linear::forward_together(together.layers(), x1);
  REQUIRE(ys.size() == 3);
  std::vector<std::string> recorded;
  for (const auto& e : tape().entries()) recorded.push_back(e->op + " " + (e->module ? *e->module : ""));
  CHECK(recorded == std::vector<std::string>{"linear q", "linear k", "linear v"});
  TensorList loss_terms;
  for (size_t i = 0; i < ys.size(); ++i) {
    const Tensor y = alone.layers()[i]->forward(x2);
    require_close(ys[i], y, 0, 0);
    loss_terms.push_back(y);
  }
  manual_seed(7);
  TensorList seeds;
  for (const Tensor& y : ys) seeds.push_back(randn(y.shape()));
  backward(ys, seeds);
  backward(loss_terms, seeds);
  require_close(x1.grad(), x2.grad(), 0, 0);
  for (size_t i = 0; i < ys.size(); ++i)
    require_close(together.layers()[i]->weight.grad(), alone.layers()[i]->weight.grad(), 0, 0);

  // a non-contiguous x: each product on its own, the same values
  const Tensor xt = transpose(randn({3, 64, 200}), 1, 2);
  const TensorList yt = nn::Linear::forward_together(together.layers(), xt);
  for (size_t i = 0; i < yt.size(); ++i) require_close(yt[i], alone.layers()[i]->forward(xt), 0, 0);
  // errors name the layer's input
  CHECK_THROWS_WITH_AS(nn::Linear::forward_together(together.layers(), zeros({2, 63})),
                       doctest::Contains("Linear: expected x (..., 64) float32, got (2,63)"), tg::Error);
  // a hooked or composed layer: the caller runs each forward
  HookHandle hook = together.k->register_forward_hook([](const nn::Module&, const TensorList&, const TensorList&) {});
  CHECK(nn::Linear::forward_together(together.layers(), x_data).empty());
  hook.remove();
  CHECK(nn::Linear::forward_together(together.layers(), x_data).size() == 3);
  together.set_composed(true);
  CHECK(nn::Linear::forward_together(together.layers(), x_data).empty());
}
