// Typed access to optimizer state: adam.state(p).exp_avg and the like, the same tensors that
// state_dict() copies.
#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("Adam::state: step, exp_avg and exp_avg_sq of one parameter, live") {
  NamedParameter p = param("p", {1, -2}), q = param("q", {3});
  Adam adam({p, q}, {.lr = 0.1});
  AdamState before = adam.state(p.tensor);
  CHECK(before.step == 0);
  CHECK_FALSE(before.exp_avg.defined());
  CHECK_FALSE(before.exp_avg_sq.defined());

  set_grad(p, {0.5, 1});
  adam.step();
  const AdamState first = adam.state(p.tensor);
  CHECK(first.step == 1);
  require_values(first.exp_avg, {0.05, 0.1}, 1e-15);  // (1 - beta1) g
  set_grad(p, {-1, 2});
  adam.step();
  const AdamState second = adam.state(p.tensor);
  CHECK(second.step == 2);
  require_values(second.exp_avg, {0.9 * 0.05 - 0.1, 0.9 * 0.1 + 0.2}, 1e-15);
  require_values(second.exp_avg_sq, {0.999 * 0.00025 + 0.001, 0.999 * 0.001 + 0.004}, 1e-15);
  require_values(first.exp_avg, second.exp_avg.to_vector<double>(), 0);  // handles on the live buffers
  const StateDict dict = adam.state_dict();
  require_values(entry(dict, "state.p.exp_avg"), second.exp_avg.to_vector<double>(), 0);
  require_values(entry(dict, "state.p.exp_avg_sq"), second.exp_avg_sq.to_vector<double>(), 0);
  CHECK(adam.state(q.tensor).step == 0);  // no gradient yet: no state

  Tensor handle = p.tensor;  // another handle on the same parameter finds it too
  CHECK(adam.state(handle).step == 2);
  CHECK_THROWS_WITH_AS(adam.state(tensor({1, -2}, {2}, kF64)),
                       "adam: state: (2,) float64 is not one of this optimizer's parameters", Error);
  CHECK_THROWS_WITH_AS(adam.state(Tensor()), doctest::Contains("an undefined tensor"), Error);
}

TEST_CASE("AdamW::state and SGD::state") {
  NamedParameter p = param("p", {1, -2});
  AdamW adamw({p}, {.lr = 0.1});
  set_grad(p, {0.5, 1});
  adamw.step();
  CHECK(adamw.state(p.tensor).step == 1);
  require_values(adamw.state(p.tensor).exp_avg_sq, {0.001 * 0.25, 0.001}, 1e-15);

  NamedParameter s = param("s", {1, -2});
  SGD sgd({s}, {.lr = 0.1, .momentum = 0.9});
  set_grad(s, {0.5, 1});
  sgd.step();
  require_values(sgd.state(s.tensor).momentum_buffer, {0.5, 1}, 0);  // the first buffer is g
  set_grad(s, {-1, 2});
  sgd.step();
  const SGDState state = sgd.state(s.tensor);
  CHECK(state.step == 2);
  require_values(state.momentum_buffer, {0.9 * 0.5 - 1, 0.9 + 2}, 1e-15);
  require_values(entry(sgd.state_dict(), "state.s.momentum_buffer"), state.momentum_buffer.to_vector<double>(), 0);

  NamedParameter plain = param("plain", {1});
  SGD no_momentum({plain}, {.lr = 0.1});
  set_grad(plain, {1});
  no_momentum.step();
  CHECK(no_momentum.state(plain.tensor).step == 1);
  CHECK_FALSE(no_momentum.state(plain.tensor).momentum_buffer.defined());  // momentum 0 keeps no buffer
  CHECK_THROWS_WITH_AS(no_momentum.state(s.tensor), doctest::Contains("sgd: state: (2,) float64"), Error);
}
