// Second order, forward mode and forward over reverse of the arithmetic, gelu/erf and shape ops
// against finite differences in float64 (core/gradcheck.h), on the cases their registry records
// do not show: broadcasting, strides, every form of an op, and the shortcuts that return x itself.
// A linear op is checked inside a nonlinear function (its output squared): its gradient is then
// a function of x that must flow through the op's reference rule with its history.
#include "core/grad.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

using Inputs = std::vector<Tensor>;
using TensorFn = std::function<Tensor(const Inputs&)>;

Tensor squared(const Tensor& y) { return mul(y, y); }

void require_higher_order(const TensorFn& fn, const Inputs& inputs, const GradcheckOptions& options = {}) {
  for (const GradcheckResult& r : {gradgradcheck(fn, inputs, options), check_forward_ad(fn, inputs, options),
                                   check_fwd_over_rev(fn, inputs, options)}) {
    INFO(r.report);
    CHECK(r.checked > 0);
    CHECK(r.ok);
  }
}

// The gradients of <fn(x), w> for a fixed random w, by the reference rules (creating a graph) or
// the fast paths.
TensorList gradients(const TensorFn& fn, const TensorList& inputs, bool create_graph) {
  const Tensor y = fn(inputs);
  const Tensor w = to_dtype_copy(rand64(y.shape(), 11).detach(), y.dtype());
  return grad({y}, inputs, {w}, {.create_graph = create_graph});
}

// The fast paths (kernels) give what the reference rules give, in `dtype`.
void require_fast_path_matches_reference(const TensorFn& fn, const TensorList& inputs, DType dtype) {
  TensorList cast;
  for (const Tensor& x : inputs) cast.push_back(to_dtype_copy(x.detach(), dtype).requires_grad_());
  const TensorList reference = gradients(fn, cast, true), fast = gradients(fn, cast, false);
  for (size_t i = 0; i < cast.size(); ++i)
    require_close(fast[i], reference[i].detach(), dtype == kF64 ? 1e-12 : 1e-5, dtype == kF64 ? 1e-12 : 1e-5);
}

}  // namespace

TEST_CASE("higher order rules: sub, div and neg, broadcasting") {
  const TensorList ab = {noncontig64({2, 3}, 1), rand64({3}, 2)};
  require_higher_order([](const Inputs& x) { return squared(sub(x[0], x[1])); }, ab);
  require_higher_order([](const Inputs& x) { return squared(sub(x[1], x[0])); }, ab);
  require_higher_order([](const Inputs& x) { return div(x[0], x[1]); }, {rand64({2, 3}, 3), rand64({3}, 4, 0.5, 1.5)});
  require_higher_order([](const Inputs& x) { return div(x[1], x[0]); }, {rand64({2, 3}, 5, 0.5, 1.5), rand64({3}, 6)});
  require_higher_order([](const Inputs& x) { return squared(neg(x[0])); }, {noncontig64({2, 3}, 7)});
}

TEST_CASE("higher order rules: pow for integer, fractional, negative and zero exponents") {
  for (double p : {3.0, 2.0, 1.0, 0.5, -1.5}) {
    INFO("p = ", p);
    auto fn = [p](const Inputs& x) { return pow(x[0], p); };
    require_higher_order(fn, {noncontig64({2, 3}, 8, 0.5, 1.5)});
    require_fast_path_matches_reference(fn, {rand64({2, 3}, 9, 0.5, 1.5)}, kF64);
    require_fast_path_matches_reference(fn, {rand64({2, 3}, 9, 0.5, 1.5)}, kF32);
  }
  // x^0 = 1: its gradient is 0 (at 0 too) and has no history to differentiate.
  const Tensor x = tensor({0, 1}, {2}, kF64).requires_grad_();
  require_values(grad({pow(x, 0)}, {x}, {ones_like(x)}, {.create_graph = true})[0], {0, 0}, 0);
}

TEST_CASE("higher order rules: gelu, erf and tanh forms, and erf") {
  for (GeluApprox approx : {GeluApprox::none, GeluApprox::tanh}) {
    auto fn = [approx](const Inputs& x) { return gelu(x[0], approx); };
    require_higher_order(fn, {noncontig64({2, 3}, 10, -3, 3)});
    require_fast_path_matches_reference(fn, {rand64({3, 4}, 11, -3, 3)}, kF64);
    require_fast_path_matches_reference(fn, {rand64({3, 4}, 11, -3, 3)}, kF32);
  }
  require_higher_order([](const Inputs& x) { return erf(x[0]); }, {noncontig64({2, 3}, 12, -2, 2)});
}

TEST_CASE("higher order rules: masked_fill, clone, contiguous and to") {
  const Tensor mask = tensor_bool({true, false, true}, {3});
  require_higher_order([&](const Inputs& x) { return squared(masked_fill(x[0], mask, -1.0)); },
                       {noncontig64({2, 3}, 13)});
  require_higher_order([](const Inputs& x) { return squared(clone(x[0])); }, {noncontig64({2, 3}, 14)});
  require_higher_order([](const Inputs& x) { return squared(contiguous(x[0])); }, {noncontig64({2, 3}, 15)});
  // The shortcuts return x itself: its gradient and tangent flow on.
  require_higher_order([](const Inputs& x) { return squared(contiguous(x[0])); }, {rand64({2, 3}, 16)});
  require_higher_order([](const Inputs& x) { return squared(to(x[0], kF64)); }, {rand64({2, 3}, 17)});
  require_higher_order([](const Inputs& x) { return squared(to(x[0], kCPU)); }, {rand64({2, 3}, 18)});
  // Through float32: the steps must dwarf its rounding (the functions are quadratic, so a
  // large step costs nothing).
  require_higher_order([](const Inputs& x) { return squared(to(to(x[0], kF32), kF64)); }, {rand64({2, 3}, 19)},
                       {.eps = 1e-2, .atol = 1e-4});
}

TEST_CASE("higher order rules: cat and split") {
  require_higher_order([](const Inputs& x) { return squared(cat({x[0], x[1], x[2]}, 1)); },
                       {noncontig64({2, 3}, 20), rand64({2, 1}, 21), rand64({2, 2}, 22)});
  // Three pieces, the last unused: its gradient is zeros.
  require_higher_order(
      [](const Inputs& x) {
        auto pieces = split(x[0], 2, 0);
        return mul(pieces[0], pieces[1]);
      },
      {noncontig64({5, 2}, 23)});
  require_higher_order(
      [](const Inputs& x) {
        auto pieces = split(x[0], std::vector<int64_t>{1, 2}, 1);
        return mul(pieces[0], pieces[1]);
      },
      {rand64({2, 3}, 24)});
}

TEST_CASE("higher order rules: slice with steps, and narrow") {
  for (int64_t step : {1, 2, 3}) {
    INFO("step ", step);
    auto fn = [step](const Inputs& x) { return squared(slice(x[0], 1, 1, 6, step)); };
    require_higher_order(fn, {noncontig64({2, 7}, 25)});
    require_fast_path_matches_reference(fn, {rand64({3, 7}, 26)}, kF64);
    require_fast_path_matches_reference(fn, {rand64({3, 7}, 26)}, kF32);
  }
  require_higher_order([](const Inputs& x) { return squared(slice(x[0], 0, 0, 100)); }, {rand64({3, 2}, 27)});
  // An empty slice: a zero gradient, from the reference rule too.
  for (int64_t step : {1, 2}) {
    auto empty = [step](const Inputs& x) { return squared(slice(x[0], 1, 3, 3, step)); };
    require_fast_path_matches_reference(empty, {rand64({2, 5}, 38)}, kF64);
  }
  require_higher_order([](const Inputs& x) { return squared(narrow(x[0], -1, 1, 2)); }, {rand64({2, 4}, 28)});
}

TEST_CASE("higher order rules: expand, reshape, view, permute, transpose, squeeze and unsqueeze") {
  require_higher_order([](const Inputs& x) { return squared(expand(x[0], {2, 3, 4})); }, {rand64({3, 1}, 29)});
  require_higher_order([](const Inputs& x) { return squared(expand(x[0], {-1, 3})); }, {rand64({2, 3}, 30)});
  require_higher_order([](const Inputs& x) { return squared(reshape(x[0], {3, -1})); }, {noncontig64({2, 3, 2}, 31)});
  require_higher_order([](const Inputs& x) { return squared(view(x[0], {6})); }, {rand64({2, 3}, 32)});
  require_higher_order([](const Inputs& x) { return squared(permute(x[0], {2, 0, 1})); }, {noncontig64({2, 3, 4}, 33)});
  require_higher_order([](const Inputs& x) { return squared(transpose(x[0], 0, -1)); }, {rand64({2, 3, 4}, 34)});
  require_higher_order([](const Inputs& x) { return squared(squeeze(x[0])); }, {rand64({2, 1, 3, 1}, 35)});
  require_higher_order([](const Inputs& x) { return squared(squeeze(x[0], 1)); }, {rand64({2, 1, 3}, 36)});
  require_higher_order([](const Inputs& x) { return squared(unsqueeze(x[0], -1)); }, {noncontig64({2, 3}, 37)});
}
