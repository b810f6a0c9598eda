#include "apps/op_cases.h"

#include <cmath>
#include <utility>

#include "core/factories.h"
#include "ops/ops.h"

namespace tg::cli {

namespace {

using Inputs = std::vector<Tensor>;

// Uniform in [low, high), float64, requiring grad.
Tensor r(const Shape& shape, uint64_t seed, double low = -1, double high = 1) {
  Generator gen(seed);
  return rand(shape, kF64, kCPU, gen, low, high).requires_grad_();
}

// The same values with the last two dims' strides swapped: a non-contiguous leaf.
Tensor noncontig(Shape shape, uint64_t seed) {
  std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
  Generator gen(seed);
  Tensor base = rand(shape, kF64, kCPU, gen, -1, 1);
  Shape size = base.shape(), strides = base.strides();
  std::swap(size[size.size() - 1], size[size.size() - 2]);
  std::swap(strides[strides.size() - 1], strides[strides.size() - 2]);
  return make_view(base, size, strides, 0).requires_grad_();
}

OpCase unary(std::string op, Tensor (*f)(const Tensor&), double low = -1, double high = 1) {
  return {op, op, [=] { return Inputs{r({2, 3}, 1, low, high)}; }, [f](const Inputs& in) { return f(in[0]); }};
}

OpCase binary(std::string op, Tensor (*f)(const Tensor&, const Tensor&), double low = -1, double high = 1) {
  // (2,3) with (3): b broadcasts over the rows
  return {op, op, [=] { return Inputs{r({2, 3}, 1, low, high), r({3}, 2, low, high)}; },
          [f](const Inputs& in) { return f(in[0], in[1]); }};
}

std::vector<OpCase> make_cases() {
  using T = const Tensor&;
  std::vector<OpCase> cases = {
      binary("add", [](T a, T b) { return add(a, b); }),
      {"attention", "softmax", [] { return Inputs{r({1, 2, 3, 4}, 1), r({1, 2, 3, 4}, 2), r({1, 2, 3, 2}, 3)}; },
       [](const Inputs& in) {
         AttentionOptions causal;
         causal.is_causal = true;
         return scaled_dot_product_attention(in[0], in[1], in[2], causal).output;
       }},
      {"cat", "cat", [] { return Inputs{r({2, 3}, 1), r({2, 2}, 2)}; },
       [](const Inputs& in) { return cat({in[0], in[1]}, 1); }},
      unary("clone", [](T x) { return clone(x); }),
      {"contiguous", "contiguous", [] { return Inputs{noncontig({2, 3}, 1)}; },
       [](const Inputs& in) { return contiguous(in[0]); }},
      {"cross_entropy", "cross_entropy", [] { return Inputs{r({4, 5}, 1, -2, 2)}; },
       [](const Inputs& in) { return cross_entropy(in[0], tensor_i64({3, -100, 0, 4})); }},
      binary("div", [](T a, T b) { return div(a, b); }, 0.5, 1.5),
      {"dropout", "dropout", [] { return Inputs{r({3, 4}, 1)}; },
       [](const Inputs& in) {
         Generator gen(7);  // the same mask at every evaluation
         return dropout(in[0], 0.4, true, gen);
       }},
      {"embedding", "embedding", [] { return Inputs{r({5, 3}, 1)}; },
       [](const Inputs& in) { return embedding(tensor_i64({2, 0, 2, 4, 1, 2}, {2, 3}), in[0]); }},
      unary("exp", [](T x) { return exp(x); }),
      {"expand", "expand", [] { return Inputs{r({3, 1}, 1)}; }, [](const Inputs& in) { return expand(in[0], {3, 4}); }},
      {"fused_attention", "fused_attention",
       [] { return Inputs{r({1, 2, 3, 4}, 1), r({1, 2, 5, 4}, 2), r({1, 2, 5, 2}, 3)}; },
       [](const Inputs& in) {
         AttentionOptions o;
         o.is_causal = true;
         o.key_padding_mask = padding_mask({4}, 5);
         return fused_attention(in[0], in[1], in[2], o);
       }},
      unary("gelu", [](T x) { return gelu(x); }),
      {"layer_norm", "layer_norm", [] { return Inputs{r({2, 3, 4}, 1), r({4}, 2), r({4}, 3)}; },
       [](const Inputs& in) { return layer_norm(in[0], {4}, in[1], in[2]); }},
      {"linear", "linear", [] { return Inputs{r({2, 3, 4}, 1), r({5, 4}, 2), r({5}, 3)}; },
       [](const Inputs& in) { return linear(in[0], in[1], in[2]); }},
      unary("log", [](T x) { return log(x); }, 0.5, 2),
      unary("log_softmax", [](T x) { return log_softmax(x, -1); }),
      {"masked_fill", "masked_fill", [] { return Inputs{r({2, 3}, 1)}; },
       [](const Inputs& in) { return masked_fill(in[0], tensor_bool({true, false, true}, {3}), 0.5); }},
      {"matmul", "matmul", [] { return Inputs{r({2, 3, 4}, 1), r({4, 2}, 2)}; },
       [](const Inputs& in) { return matmul(in[0], in[1]); }},
      {"max", "max", [] { return Inputs{r({3, 4}, 1)}; }, [](const Inputs& in) { return max(in[0], 1); }},
      {"mean", "mean", [] { return Inputs{r({2, 3, 4}, 1)}; }, [](const Inputs& in) { return mean(in[0], {1}); }},
      binary("mul", [](T a, T b) { return mul(a, b); }),
      unary("neg", [](T x) { return neg(x); }),
      {"permute", "permute", [] { return Inputs{r({2, 3, 4}, 1)}; },
       [](const Inputs& in) { return permute(in[0], {2, 0, 1}); }},
      unary("pow", [](T x) { return pow(x, 3); }, 0.5, 2),
      unary("relu", [](T x) { return relu(x); }),
      {"relu_dropout", "relu_dropout", [] { return Inputs{r({3, 4}, 1)}; },
       [](const Inputs& in) {
         Generator gen(7);  // the same mask at every evaluation
         return relu_dropout(in[0], 0.4, true, gen);
       }},
      {"reshape", "reshape", [] { return Inputs{r({2, 3}, 1)}; },
       [](const Inputs& in) { return reshape(in[0], {3, 2}); }},
      unary("sigmoid", [](T x) { return sigmoid(x); }),
      {"slice", "slice", [] { return Inputs{r({4, 3}, 1)}; }, [](const Inputs& in) { return slice(in[0], 0, 1, 3); }},
      unary("softmax", [](T x) { return softmax(x, -1); }),
      {"split", "split", [] { return Inputs{r({5, 2}, 1)}; },
       [](const Inputs& in) {
         auto pieces = split(in[0], 2, 0);
         return add(pieces[0], pieces[1]);
       }},
      unary("sqrt", [](T x) { return sqrt(x); }, 0.5, 2),
      {"squeeze", "squeeze", [] { return Inputs{r({2, 1, 3}, 1)}; }, [](const Inputs& in) { return squeeze(in[0], 1); }},
      binary("sub", [](T a, T b) { return sub(a, b); }),
      {"sum", "sum", [] { return Inputs{r({2, 3}, 1)}; }, [](const Inputs& in) { return sum(in[0], {0}); }},
      unary("tanh", [](T x) { return tanh(x); }),
      {"to", "to", [] { return Inputs{r({2, 3}, 1)}; },
       [](const Inputs& in) { return to(to(in[0], kF32), kF64); },
       {.eps = 1e-2}},  // float32 rounds by 6e-8 (relative): a larger step keeps the differences clean
      {"transpose", "transpose", [] { return Inputs{r({2, 3}, 1)}; },
       [](const Inputs& in) { return transpose(in[0], 0, 1); }},
      {"unsqueeze", "unsqueeze", [] { return Inputs{r({2, 3}, 1)}; },
       [](const Inputs& in) { return unsqueeze(in[0], 1); }},
  };
  return cases;
}

}  // namespace

const std::vector<OpCase>& op_cases() {
  static const std::vector<OpCase> cases = make_cases();
  return cases;
}

}  // namespace tg::cli
