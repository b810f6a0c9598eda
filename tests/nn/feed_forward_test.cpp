#include "nn_test_util.h"
#include "ops/gelu/gelu.h"
#include "ops/relu/relu.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("nn::FeedForward: linear2(activation(linear1(x))), names") {
  nn::FeedForward ff(4, 6, nn::Activation::gelu, 0.5);
  CHECK(names_of(ff.state_dict()) ==
        std::vector<std::string>{"linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias"});
  ff.eval();  // no dropout
  randomize_parameters(ff, 1);
  Tensor x = rand64({2, 3, 4}, 2).detach();
  ff.to_(kF64);
  Tensor expected = ff.linear2->forward(gelu(ff.linear1->forward(x)));
  CHECK(max_abs_diff(ff.forward(x), expected) == 0);
  nn::FeedForward relu_ff(4, 6);
  relu_ff.to_(kF64);
  CHECK(max_abs_diff(relu_ff.forward(x), relu_ff.linear2->forward(relu(relu_ff.linear1->forward(x)))) == 0);
  // In training the dropout between the linears is active.
  ff.train();
  CHECK(max_abs_diff(ff.forward(x), expected) > 0);
}

TEST_CASE("nn::FeedForward: linear1, relu and dropout as one op (linear_relu in eval) or apart, the same values") {
  nn::FeedForward ff(4, 6, nn::Activation::relu, 0.4);
  ff.to_(kF64);
  randomize_parameters(ff, 5);
  const Tensor x = rand64({2, 3, 4}, 6).detach().requires_grad_();
  manual_seed(3);
  tape().clear();
  const Tensor fused = ff.forward(x);
  REQUIRE(tape().entries().size() == 2);
  CHECK(tape().entries().at(0)->op == "linear_relu_dropout");
  REQUIRE(tape().entries().at(0)->module);
  CHECK(*tape().entries().at(0)->module == "linear1");
  ff.fuse_relu_dropout = false;
  manual_seed(3);
  tape().clear();
  const Tensor three = ff.forward(x);  // held: the graph lives as long as its output
  require_close(three, fused, 0, 0);
  CHECK(tape().entries().size() == 4);  // linear, relu, dropout, linear
  ff.fuse_relu_dropout = true;
  ff.eval();  // no draw: linear1 and relu as one linear_relu op, or two
  tape().clear();
  const Tensor eval_out = ff.forward(x);
  REQUIRE(tape().entries().size() == 2);
  CHECK(tape().entries().at(0)->op == "linear_relu");
  REQUIRE(tape().entries().at(0)->module);
  CHECK(*tape().entries().at(0)->module == "linear1");
  ff.fuse_relu_dropout = false;
  tape().clear();
  const Tensor eval_three = ff.forward(x);
  require_close(eval_three, eval_out, 0, 0);
  REQUIRE(tape().entries().size() == 3);
  CHECK(tape().entries().at(0)->op == "linear");
  CHECK(tape().entries().at(1)->op == "relu");
}

TEST_CASE("nn::FeedForward: gradcheck (relu and gelu)") {
  for (nn::Activation act : {nn::Activation::relu, nn::Activation::gelu}) {
    nn::FeedForward ff(3, 5, act);
    ff.to_(kF64);
    randomize_parameters(ff, 3);
    require_module_gradcheck(ff, {rand64({2, 3}, 4)}, [&](const std::vector<Tensor>& in) { return ff.forward(in[0]); });
  }
}
