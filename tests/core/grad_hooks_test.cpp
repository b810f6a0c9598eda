// retain_grad() and register_hook() (core/hooks.h): when they run, what they see, what they change.
#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("retain_grad: a non-leaf keeps its gradient, without it grad() is undefined and says why") {
  Tensor x = tensor({1, 2, 3}).requires_grad_();
  Tensor h = mul(x, 2.0);
  Tensor kept = mul(h, h);
  kept.retain_grad();
  CHECK(kept.retains_grad());
  CHECK_FALSE(h.retains_grad());
  CHECK(kept.why_no_grad().find("no backward has reached it") != std::string::npos);
  sum(kept).backward();
  require_values(kept.grad(), {1, 1, 1});
  CHECK(kept.why_no_grad().empty());
  CHECK_FALSE(h.grad().defined());
  const std::string why = h.why_no_grad();
  CHECK(why.find("not a leaf") != std::string::npos);
  CHECK(why.find("retain_grad()") != std::string::npos);
  CHECK(why.find("'mul'") != std::string::npos);
  CHECK(tensor({1}).why_no_grad().find("does not require grad") != std::string::npos);
  CHECK(x.why_no_grad().empty());
}

TEST_CASE("retain_grad: the whole gradient of a tensor used twice, accumulated over backward calls") {
  Tensor x = tensor({1, 2}).requires_grad_();
  Tensor h = mul(x, 3.0);
  h.retain_grad();
  Tensor loss = sum(add(mul(h, h), h));  // dloss/dh = 2h + 1
  loss.backward({}, /*retain_graph=*/true);
  require_values(h.grad(), {7, 13});
  loss.backward();
  require_values(h.grad(), {14, 26});
  h.zero_grad();
  CHECK_FALSE(h.grad().defined());
  Tensor leaf = tensor({1}).requires_grad_();
  CHECK_FALSE(leaf.retain_grad().retains_grad());  // a leaf keeps its gradient anyway
  CHECK_THROWS_WITH_AS(tensor({1}).retain_grad(), doctest::Contains("does not require grad"), Error);
}

TEST_CASE("register_hook on a non-leaf: sees the summed gradient once, may replace it") {
  Tensor x = tensor({1, 2}).requires_grad_();
  Tensor h = mul(x, 1.0);
  h.retain_grad();
  std::vector<std::vector<float>> seen;
  HookHandle watch = h.register_hook([&](const Tensor& g) {
    seen.push_back(g.to_vector<float>());
    return Tensor();  // keep it
  });
  HookHandle doubling = h.register_hook([](const Tensor& g) { return mul(g, 2.0); });
  sum(add(h, h)).backward({}, /*retain_graph=*/true);  // h's entry is used again below
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<float>{2, 2});
  require_values(h.grad(), {4, 4});  // retained after the hooks
  require_values(x.grad(), {4, 4});  // the replacement flows on

  doubling.remove();
  doubling.remove();  // a second remove does nothing
  x.zero_grad();
  sum(mul(h, 1.0)).backward();
  CHECK(seen.size() == 2);
  require_values(x.grad(), {1, 1});
  watch.remove();
}

TEST_CASE("register_hook on a leaf: runs on each gradient before it is added into grad()") {
  Tensor w = tensor({1, 2}).requires_grad_();
  int calls = 0;
  w.register_hook([&](const Tensor& g) {
    ++calls;
    return mul(g, 10.0);
  });
  sum(add(mul(w, 2.0), w)).backward();  // two uses of w: two gradients, 2 and 1
  CHECK(calls == 2);
  require_values(w.grad(), {30, 30});
}

TEST_CASE("register_hook: errors name the tensor and the shapes") {
  Tensor x = tensor({1, 2}).requires_grad_();
  Tensor h = mul(x, 2.0);
  h.set_name("h");
  h.register_hook([](const Tensor&) { return zeros({3}); });
  CHECK_THROWS_WITH_AS(sum(h).backward(), doctest::Contains("returned a (3,) float32 gradient for a (2,) float32 one"),
                       Error);
  CHECK_THROWS_WITH_AS(tensor({1}).register_hook([](const Tensor& g) { return g; }),
                       doctest::Contains("does not require grad"), Error);
  CHECK_THROWS_WITH_AS(x.register_hook(nullptr), doctest::Contains("empty function"), Error);
}

TEST_CASE("register_hook: a handle outliving its tensor removes nothing and does not crash") {
  HookHandle handle;
  {
    Tensor x = tensor({1}).requires_grad_();
    handle = x.register_hook([](const Tensor& g) { return g; });
  }
  handle.remove();
}
