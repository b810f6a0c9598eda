#include <memory>

#include "ops/mul/mul.h"

#include "nn_test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// A module with every kind of entry: a parameter, a persistent and a non-persistent buffer, a
// second parameter registered after them, and two children.
struct Toy : nn::Module {
  Tensor scale, count, scratch, shift;
  std::shared_ptr<nn::Linear> proj;
  std::shared_ptr<nn::LayerNorm> norm;
  explicit Toy(bool tie = false) : Module("Toy") {
    register_parameter("scale", scale, full({2}, 3));
    register_buffer("count", count, zeros({1}));
    register_buffer("scratch", scratch, zeros({2}), /*persistent=*/false);
    register_parameter("shift", shift, zeros({2}));
    proj = register_module("proj", std::make_shared<nn::Linear>(2, 3));
    norm = register_module("norm", std::make_shared<nn::LayerNorm>(Shape{3}));
    if (tie) register_module("proj_again", proj);
  }
  void try_register(const std::string& name) { register_parameter(name, extra, zeros({1})); }
  Tensor extra;
};

}  // namespace

TEST_CASE("nn::Module: names and orders of parameters, buffers, state_dict and modules") {
  Toy toy;
  // Own parameters in registration order, then each child's.
  CHECK(names_of(toy.named_parameters()) ==
        std::vector<std::string>{"scale", "shift", "proj.weight", "proj.bias", "norm.weight", "norm.bias"});
  CHECK(names_of(toy.named_buffers()) == std::vector<std::string>{"count", "scratch"});
  // state_dict: own parameters, then own persistent buffers, then children (PyTorch's order).
  CHECK(names_of(toy.state_dict()) ==
        std::vector<std::string>{"scale", "shift", "count", "proj.weight", "proj.bias", "norm.weight", "norm.bias"});
  std::vector<std::string> modules;
  for (const auto& [name, m] : toy.named_modules()) modules.push_back(name + ":" + m->type());
  CHECK(modules == std::vector<std::string>{":Toy", "proj:Linear", "norm:LayerNorm"});

  std::vector<Tensor> params = toy.parameters();
  REQUIRE(params.size() == 6);
  CHECK(params[2].impl() == toy.proj->weight.impl());  // the module's own tensors, not copies
  for (const Tensor& p : params) {
    CHECK(p.is_leaf());
    CHECK(p.requires_grad());
  }
  CHECK_FALSE(toy.count.requires_grad());
}

TEST_CASE("nn::Module: a tied module's parameters appear once, its state under both names") {
  Toy toy(/*tie=*/true);
  CHECK(toy.parameters().size() == 6);
  CHECK(toy.state_dict().size() == 9);  // + proj_again.weight, proj_again.bias
}

TEST_CASE("nn::Module: registration errors") {
  Toy toy;
  CHECK_THROWS_WITH_AS(toy.try_register("scale"),
                       doctest::Contains("Toy: parameter name 'scale' is already registered"), tg::Error);
  CHECK_THROWS_WITH_AS(toy.try_register("proj"), doctest::Contains("already registered"), tg::Error);
  CHECK_THROWS_WITH_AS(toy.try_register("a.b"), doctest::Contains("must be non-empty and contain no '.'"), tg::Error);
  CHECK_THROWS_WITH_AS(toy.try_register(""), doctest::Contains("must be non-empty"), tg::Error);
}

TEST_CASE("nn::Module: state_dict shares storage, load_state_dict round trip keeps leaves and storage") {
  manual_seed(1);
  Toy a;
  manual_seed(2);
  Toy b;
  REQUIRE(max_abs_diff(a.proj->weight, b.proj->weight) > 0);
  NamedTensors state = a.state_dict();
  CHECK(state[0].second.storage() == a.scale.storage());
  CHECK_FALSE(state[0].second.requires_grad());

  const void* before = b.proj->weight.raw_data();
  const int64_t id = b.proj->weight.id();
  nn::LoadResult r = b.load_state_dict(state);
  CHECK(r.missing.empty());
  CHECK(r.unexpected.empty());
  for (size_t i = 0; i < state.size(); ++i) {
    CAPTURE(state[i].first);
    CHECK(max_abs_diff(b.state_dict()[i].second, state[i].second) == 0);
  }
  CHECK(b.proj->weight.raw_data() == before);  // copied into the existing storage
  CHECK(b.proj->weight.id() == id);
  CHECK(b.proj->weight.is_leaf());
  CHECK(b.proj->weight.requires_grad());
  // The loaded module computes what the original does.
  Tensor x = tensor({0.5, -1, 2, 1}, {2, 2});
  CHECK(max_abs_diff(b.proj->forward(x), a.proj->forward(x)) == 0);
  // Loading float64 values into the float32 module converts them.
  NamedTensors wide;
  for (const auto& [name, t] : state) wide.emplace_back(name, to_dtype_copy(t, kF64));
  b.load_state_dict(wide);
  CHECK(b.scale.dtype() == kF32);
}

TEST_CASE("nn::Module: load_state_dict names every missing, unexpected and mis-shaped entry") {
  Toy toy;
  NamedTensors state = toy.state_dict();
  state.erase(state.begin() + 3);                       // proj.weight missing
  state.erase(state.begin());                           // scale missing
  state.emplace_back("proj.bais", zeros({3}));          // unexpected
  state[0].second = zeros({3});                         // shift: (2,) expected
  state.emplace_back("extra", zeros({1}));              // unexpected
  REQUIRE(state[3].first == "norm.weight");
  state[3].second = full({3}, 5);                       // would show if anything were copied
  try {
    toy.load_state_dict(state);
    FAIL("no error");
  } catch (const tg::Error& e) {
    const std::string what = e.what();
    CHECK(what.find("load_state_dict: into Toy:") == 0);
    CHECK(what.find("wrong shapes: shift (expected (2,), got (3,))") != std::string::npos);
    CHECK(what.find("missing entries: scale, proj.weight") != std::string::npos);
    CHECK(what.find("unexpected entries: proj.bais, extra") != std::string::npos);
  }
  require_values(toy.norm->weight, {1, 1, 1});  // nothing was copied

  // Without strict: missing and unexpected entries are returned, the rest is loaded ...
  state[0].second = full({2}, 7);
  nn::LoadResult r = toy.load_state_dict(state, /*strict=*/false);
  CHECK(r.missing == std::vector<std::string>{"scale", "proj.weight"});
  CHECK(r.unexpected == std::vector<std::string>{"proj.bais", "extra"});
  require_values(toy.shift, {7, 7});
  // ... but a wrong shape or a duplicated name is always an error.
  state[0].second = zeros({3});
  CHECK_THROWS_WITH_AS(toy.load_state_dict(state, false), doctest::Contains("wrong shapes: shift"), tg::Error);
  NamedTensors twice{{"scale", zeros({2})}, {"scale", ones({2})}};
  CHECK_THROWS_WITH_AS(toy.load_state_dict(twice, false), doctest::Contains("duplicated entries: scale"), tg::Error);
}

TEST_CASE("nn::Module: to_(float64) converts in place, keeping each tensor's identity") {
  Toy toy;
  Tensor w = toy.proj->weight;  // a handle held elsewhere, as an optimizer would
  const std::vector<float> values = w.to_vector<float>();
  toy.proj->forward(ones({1, 2})).backward(ones({1, 3}));
  REQUIRE(w.grad().defined());
  toy.to_(kF64);
  CHECK(w.dtype() == kF64);
  CHECK(w.impl() == toy.proj->weight.impl());
  CHECK(w.is_leaf());
  CHECK(w.requires_grad());
  CHECK_FALSE(w.grad().defined());
  require_values(w, std::vector<double>(values.begin(), values.end()));
  for (const auto& [name, t] : toy.state_dict()) CHECK(t.dtype() == kF64);
  CHECK(toy.scratch.dtype() == kF64);  // non-persistent buffers too
  CHECK(toy.proj->forward(ones({1, 2}, kF64)).dtype() == kF64);
  CHECK_THROWS_WITH_AS(toy.proj->forward(ones({1, 2})), doctest::Contains("Linear: expected x (..., 2) float64"),
                       tg::Error);
  // to_(kCPU) on a CPU module changes nothing.
  const void* data = w.raw_data();
  toy.to_(kCPU);
  CHECK(w.raw_data() == data);
}

TEST_CASE("nn::Module: to_(cuda) and back") {
  if (!gpu_available_or_skip()) return;
  Toy toy;
  const std::vector<float> values = toy.proj->weight.to_vector<float>();
  Tensor w = toy.proj->weight;
  toy.to_(Device::cuda());
  CHECK(w.is_cuda());
  CHECK(toy.count.is_cuda());
  toy.to_(kCPU);
  CHECK(w.to_vector<float>() == values);
}

TEST_CASE("nn::Module: train/eval reach every module, zero_grad drops gradients") {
  Toy toy;
  CHECK(toy.is_training());
  toy.eval();
  for (const auto& [name, m] : toy.named_modules()) CHECK_FALSE(m->is_training());
  toy.train();
  for (const auto& [name, m] : toy.named_modules()) CHECK(m->is_training());

  Tensor y = toy.norm->forward(toy.proj->forward(ones({1, 2})));
  sum(y * y).backward();
  for (const Tensor& p : {toy.proj->weight, toy.proj->bias, toy.norm->weight}) CHECK(p.grad().defined());
  toy.zero_grad();
  for (const Tensor& p : toy.parameters()) CHECK_FALSE(p.grad().defined());
}

TEST_CASE("nn::Module: reset_parameters draws from the given generator") {
  nn::Linear a(4, 3), b(4, 3);
  Generator g1(5), g2(5), g3(6);
  a.reset_parameters(g1);
  b.reset_parameters(g2);
  CHECK(max_abs_diff(a.weight, b.weight) == 0);
  b.reset_parameters(g3);
  CHECK(max_abs_diff(a.weight, b.weight) > 0);
  require_values(b.bias, {0, 0, 0});
}

TEST_CASE("nn::Module: functional_call binds given tensors, gradients flow into them, then restores") {
  nn::Linear lin(2, 1);
  Tensor own = lin.weight;
  Tensor w = tensor({2, -1}, {1, 2});
  w.requires_grad_();
  Tensor y = lin.functional_call({{"weight", w}}, [&] { return lin.forward(tensor({3, 4}, {1, 2})); });
  require_values(y, {2 * 3 - 4});  // bias 0
  y.backward();
  require_values(w.grad(), {3, 4});
  CHECK_FALSE(own.grad().defined());
  CHECK(lin.weight.impl() == own.impl());  // restored

  CHECK_THROWS_WITH_AS(lin.functional_call({{"wieght", w}}, [] { return Tensor(); }),
                       doctest::Contains("functional_call: Linear has no parameter or buffer 'wieght'"), tg::Error);
  CHECK_THROWS_WITH_AS(lin.functional_call({{"weight", zeros({2, 1})}}, [] { return Tensor(); }),
                       doctest::Contains("'weight' of Linear is (1,2) float32, given (2,1) float32"), tg::Error);
  // Restored after fn throws too.
  CHECK_THROWS_AS(lin.functional_call({{"weight", w}}, [&]() -> Tensor { throw tg::Error("fn", "boom"); }), tg::Error);
  CHECK(lin.weight.impl() == own.impl());
}
