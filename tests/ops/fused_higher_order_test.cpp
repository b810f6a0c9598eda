// The fused ops' reference rules (second order through tg::grad with create_graph) and their
// forward-mode rules (tg::jvp), each against central finite differences in float64.
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "core/forward_ad.h"
#include "core/grad.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

using Fn = std::function<Tensor(const TensorList&)>;
constexpr double kEps = 1e-6;

// Set field by field: designated initializers that leave out retain_graph warn
// (-Wmissing-field-initializers).
GradOptions grad_options(bool create_graph, bool allow_unused = false) {
  GradOptions options;
  options.create_graph = create_graph;
  options.allow_unused = allow_unused;
  return options;
}

// Fresh leaves requiring grad, with the inputs' strides.
TensorList leaves(const TensorList& inputs) {
  TensorList out;
  for (const Tensor& t : inputs) out.push_back(copy_keeping_strides(t.detach(), kF64, kCPU).requires_grad_());
  return out;
}

// t with its element e (row-major) moved by delta, as a fresh contiguous leaf requiring grad.
Tensor moved(const Tensor& t, int64_t e, double delta) {
  Tensor c = contiguous_copy(t.detach());
  c.data<double>()[e] += delta;
  return c.requires_grad_();
}

// The gradient of the scalar h(args) with respect to args[i], by central differences.
Tensor numeric_gradient(const std::function<double(const TensorList&)>& h, const TensorList& args, size_t i) {
  Tensor numeric = zeros(args[i].shape(), kF64);
  for (int64_t e = 0; e < numeric.numel(); ++e) {
    TensorList plus = args, minus = args;
    plus[i] = moved(args[i], e, kEps);
    minus[i] = moved(args[i], e, -kEps);
    numeric.data<double>()[e] = (h(plus) - h(minus)) / (2 * kEps);
  }
  return numeric;
}

// Second order: with fixed random u (fn's output) and w_i (each input's shape), the gradient of
// G(x, u) = sum_i <dL/dx_i, w_i>, L = <fn(x), u>, with respect to every x_i and to u, where
// dL/dx comes from the reference rules (create_graph), against central differences of G computed
// by the fast first-order backward. First order too: the reference rules' gradients are the
// fast path's.
void require_fused_second_order(const Fn& fn, const TensorList& inputs) {
  const TensorList x = leaves(inputs);
  const Tensor u = rand64(fn(x).shape(), 100);
  TensorList w;
  for (size_t i = 0; i < x.size(); ++i) w.push_back(rand64(x[i].shape(), 200 + i).detach());

  const TensorList reference = grad({fn(x)}, x, {u}, grad_options(true));
  const TensorList fast = grad({fn(x)}, x, {u});
  for (size_t i = 0; i < x.size(); ++i) {
    INFO("first order, input ", i);
    require_close(reference[i], fast[i], 1e-12, 1e-10);
  }

  // args = x..., u
  auto G = [&](const TensorList& args, bool create_graph) {
    const TensorList xs(args.begin(), args.end() - 1);
    const TensorList g = grad({fn(xs)}, xs, {args.back()}, grad_options(create_graph));
    Tensor total = zeros({}, kF64);
    for (size_t i = 0; i < g.size(); ++i) total = add(total, sum(mul(g[i], w[i])));
    return total;
  };
  TensorList args = x;
  args.push_back(u);
  const TensorList analytic = grad({G(args, true)}, args, {}, grad_options(false, true));
  for (size_t i = 0; i < args.size(); ++i) {
    INFO("second order, with respect to ", i < x.size() ? fmt::format("input {}", i) : std::string("grad_output"));
    const Tensor numeric = numeric_gradient([&](const TensorList& a) { return G(a, false).item(); }, args, i);
    require_close(analytic[i].defined() ? analytic[i] : zeros_like(numeric), numeric, 1e-6, 1e-4);
  }
}

// Forward mode: jvp along random tangents (one per input) against central differences of fn.
void require_jvp_matches_differences(const Fn& fn, const TensorList& inputs) {
  TensorList primals, tangents, plus, minus;
  for (size_t i = 0; i < inputs.size(); ++i) {
    primals.push_back(copy_keeping_strides(inputs[i].detach(), kF64, kCPU));
    tangents.push_back(rand64(inputs[i].shape(), 300 + i).detach());
    plus.push_back(add(primals[i], mul(tangents[i], kEps)));
    minus.push_back(sub(primals[i], mul(tangents[i], kEps)));
  }
  const auto [outs, tangent_outs] = jvp([&](const TensorList& in) { return TensorList{fn(in)}; }, primals, tangents);
  require_close(outs[0], fn(primals), 0, 0);
  const Tensor numeric = div(sub(fn(plus), fn(minus)), 2 * kEps);
  require_close(tangent_outs[0], numeric, 1e-6, 1e-4);
}

void require_fused_higher_order(const Fn& fn, const TensorList& inputs) {
  require_fused_second_order(fn, inputs);
  require_jvp_matches_differences(fn, inputs);
}

}  // namespace

TEST_CASE("fused linear: second order and forward mode match finite differences") {
  const Fn with_bias = [](const TensorList& in) { return linear(in[0], in[1], in[2]); };
  const Fn without_bias = [](const TensorList& in) { return linear(in[0], in[1]); };
  SUBCASE("x (2,3,4), weight (5,4), bias (5)") {
    require_fused_higher_order(with_bias, {rand64({2, 3, 4}, 1), rand64({5, 4}, 2), rand64({5}, 3)});
  }
  SUBCASE("non-contiguous x, no bias") {
    require_fused_higher_order(without_bias, {noncontig64({3, 4}, 4), rand64({5, 4}, 5)});
  }
  SUBCASE("1-D x") { require_fused_higher_order(with_bias, {rand64({4}, 6), rand64({3, 4}, 7), rand64({3}, 8)}); }
}

TEST_CASE("fused relu_dropout: second order and forward mode match finite differences, away from x = 0") {
  // |x| >= 0.1: relu's step has no derivative at 0.
  const Tensor x = tensor({0.5, -0.3, 0.9, -0.7, 0.2, 0.8, -0.1, 0.4, -0.6, 0.3, 0.7, -0.9}, {3, 4}, kF64);
  const Fn fn = [](const TensorList& in) {
    Generator gen(7);  // the same mask at every evaluation
    return relu_dropout(in[0], 0.4, true, gen);
  };
  require_fused_higher_order(fn, {x});
  // The forward-mode rule is dropout's too.
  require_jvp_matches_differences([](const TensorList& in) {
    Generator gen(7);
    return dropout(in[0], 0.4, true, gen);
  }, {x});
}

TEST_CASE("fused dropout_add_layer_norm: second order and forward mode match finite differences") {
  const Fn fn = [](const TensorList& in) {
    Generator gen(7);  // the same mask at every evaluation
    return dropout_add_layer_norm(in[0], in[1], 0.4, true, {4}, in[2], in[3], 1e-5, gen);
  };
  require_fused_higher_order(fn, {rand64({2, 3, 4}, 1), rand64({2, 3, 4}, 2), rand64({4}, 3), rand64({4}, 4)});
}

TEST_CASE("fused linear_relu_dropout: second order and forward mode match finite differences, away from y = 0") {
  const TensorList in{rand64({2, 3}, 4), rand64({4, 3}, 5), rand64({4}, 6)};
  // relu's step has no derivative at 0: every y = x W^T + b at least 0.05 away from it.
  const Tensor y = linear(in[0], in[1], in[2]);  // (2,4), contiguous
  for (int64_t i = 0; i < y.numel(); ++i) REQUIRE(std::abs(y.data<double>()[i]) >= 0.05);
  const Fn fn = [](const TensorList& in) {
    Generator gen(7);  // the same mask at every evaluation
    return linear_relu_dropout(in[0], in[1], in[2], 0.4, true, gen);
  };
  require_fused_higher_order(fn, in);
}

TEST_CASE("fused linear_dropout_add: second order and forward mode match finite differences") {
  const Fn fn = [](const TensorList& in) {
    Generator gen(7);  // the same mask at every evaluation
    return linear_dropout_add(in[0], in[1], in[2], in[3], 0.4, true, gen);
  };
  require_fused_higher_order(fn, {rand64({2, 3}, 1), rand64({4, 3}, 2), rand64({4}, 3), rand64({2, 4}, 4)});
}

TEST_CASE("fused linear_dropout_add_layer_norm: second order and forward mode match finite differences") {
  const Fn fn = [](const TensorList& in) {
    Generator gen(7);  // the same mask at every evaluation
    return linear_dropout_add_layer_norm(in[0], in[1], in[2], in[3], 0.4, true, {4}, in[4], in[5], 1e-5, gen);
  };
  require_fused_higher_order(fn, {rand64({2, 3}, 1), rand64({4, 3}, 2), rand64({4}, 3), rand64({2, 4}, 4),
                                  rand64({4}, 5), rand64({4}, 6)});
}

TEST_CASE("fused embedding_add_positions: second order and forward mode match finite differences") {
  const Fn fn = [](const TensorList& in) {
    return embedding_add_positions(tensor_i64({1, 4, 1, 0, 2, 1}, {2, 3}), in[0], in[1]);
  };
  require_fused_higher_order(fn, {rand64({5, 3}, 1), rand64({4, 3}, 2)});
}

TEST_CASE("fused_attention: second order and forward mode match finite differences, with every mask kind") {
  // (B,H,T,hs) = (2,1,3,2), S = 4 keys, hv = 2
  const TensorList qkv = {rand64({2, 1, 3, 2}, 1), rand64({2, 1, 4, 2}, 2), rand64({2, 1, 4, 2}, 3)};
  auto with = [](AttentionOptions o) -> Fn {
    return [o](const TensorList& in) {
      Generator gen(42);  // the same dropout mask at every evaluation
      AttentionOptions options = o;
      options.generator = &gen;
      return fused_attention(in[0], in[1], in[2], options);
    };
  };
  AttentionOptions o;
  SUBCASE("no mask") {}
  SUBCASE("causal") { o.is_causal = true; }
  SUBCASE("key padding, a sequence fully padded") { o.key_padding_mask = padding_mask({3, 0}, 4); }
  SUBCASE("bool attn_mask") { o.attn_mask = tensor_bool({false, true, false, false, true, false, true, false,
                                                          false, false, false, true}, {3, 4}); }
  SUBCASE("additive mask with a -inf, and a scale") {
    o.additive_mask = rand64({2, 1, 3, 4}, 9).detach();
    o.additive_mask.data<double>()[5] = -INFINITY;
    o.scale = 0.8;
  }
  SUBCASE("every mask at once") {
    o.is_causal = true;
    o.key_padding_mask = padding_mask({4, 2}, 4);
    o.attn_mask = tensor_bool({false, false, true, false}, {1, 4});
    o.additive_mask = rand64({3, 4}, 10).detach();
  }
  SUBCASE("dropout") {
    o.training = true;
    o.dropout_p = 0.3;
  }
  require_fused_higher_order(with(o), qkv);
}

TEST_CASE("fused_attention: second order and forward mode with q, k, v split from (B,T,E) by transposes") {
  // (B,T,H,hs) transposed to (B,H,T,hs), as nn::MultiHeadAttention makes them: not contiguous.
  auto heads = [](int64_t T, uint64_t seed) { return transpose(rand64({1, T, 2, 2}, seed).detach(), 1, 2); };
  AttentionOptions o;
  o.is_causal = true;
  require_fused_higher_order([o](const TensorList& in) { return fused_attention(in[0], in[1], in[2], o); },
                       {heads(3, 1), heads(3, 2), heads(3, 3)});
}
