// Bad-input matrix rows: library. See bad_input_case.h.
#include <cmath>
#include <cstdint>
#include <limits>

#include "bad_input/bad_input_case.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "nn/attention.h"
#include "nn/multi_head_attention.h"
#include "ops/ops.h"
#include "optim/adam.h"
#include "optim/clip_grad.h"
#include "optim/sgd.h"

namespace tg::test {

namespace {

constexpr int64_t kHuge = int64_t{1} << 62;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

BadInputCase row(std::string name, std::function<void()> misuse, std::vector<std::string> expected) {
  return {std::move(name), [misuse = std::move(misuse)] { return outcome_of(misuse); }, std::move(expected)};
}

// A float32 tensor of shape (n) that requires grad.
Tensor leaf(int64_t n) { return zeros({n}).requires_grad_(); }

// A tensor with 17 dims, one more than any tensor may have, by unsqueezing a (1) 16 times.
void unsqueeze_to_17_dims() {
  Tensor t = ones({1});
  for (int i = 0; i < 16; ++i) t = unsqueeze(t, 0);
}

}  // namespace

std::vector<BadInputCase> library_cases() {
  return {
      // ---- shapes, sizes, memory ---------------------------------------------------------
      row("zeros with 2^62 x 4 elements", [] { zeros({kHuge, 4}); },
          {"zeros", "(4611686018427387904,4)", "9223372036854775807 bytes"}),
      row("empty of 2^61 x 2 float32 (the byte size overflows)", [] { empty({kHuge / 2, 2}); },
          {"empty", "(2305843009213693952,2)", "4-byte elements"}),
      row("ones with a negative size", [] { ones({3, -2}); }, {"ones", "negative size -2", "(3,-2)"}),
      row("zeros with 17 dims", [] { zeros(Shape(17, 1)); }, {"zeros", "17 dims", "at most 16"}),
      row("unsqueeze to 17 dims", [] { unsqueeze_to_17_dims(); }, {"17 dims", "at most 16"}),
      row("zeros of 2^60 bytes (more than the machine's memory)", [] { zeros({kHuge / 16}); },
          {"zeros", "cannot allocate 1152921504606846976 bytes", "1.0 EiB", "memory"}),
      row("arange(0, 1e18)", [] { arange(0, 1e18); },
          {"arange", "cannot allocate 4000000000000000000 bytes", "memory"}),
      row("arange with a NaN end", [] { arange(0, kNaN); }, {"arange", "end=nan", "finite"}),
      row("arange with an infinite step", [] { arange(0, 10, kInf); }, {"arange", "step=inf", "finite"}),
      row("arange with a zero step", [] { arange(0, 10, 0); }, {"arange", "step=0", "nonzero"}),
      row("arange of 1e300 elements", [] { arange(0, 1e300, 1); }, {"arange", "end=1e+300", "more than int64"}),
      row("rand with a negative size", [] { rand({-1}); }, {"rand", "negative size -1"}),
      row("tensor: 3 values for shape (2,2)", [] { tensor({1, 2, 3}, {2, 2}); },
          {"tensor", "3 values", "(2,2)", "4 elements"}),
      row("make_view past the end of the storage", [] { make_view(zeros({6}), {2, 3}, {3, 1}, 1); },
          {"make_view", "shape (2,3)", "strides (3,1)", "offset 1", "1..6", "storage of 6 elements"}),
      row("make_view with a negative stride before the storage",
          [] { make_view(zeros({6}), {3}, {-1}, 1); }, {"make_view", "strides (-1,)", "-1..1", "6 elements"}),
      row("make_view whose strides overflow", [] { make_view(zeros({6}), {3}, {kHuge}, 0); },
          {"make_view", "beyond int64", "6 elements"}),
      row("make_view with a negative offset", [] { make_view(zeros({6}), {1}, {1}, -1); },
          {"make_view", "offset -1", "-1..-1"}),
      row("make_view with fewer strides than dims", [] { make_view(zeros({6}), {2, 3}, {1}, 0); },
          {"make_view", "1 strides", "2 dims"}),
      row("expand to 2^40 x 2^40 elements", [] { expand(ones({1, 1}), {int64_t{1} << 40, int64_t{1} << 40}); },
          {"expand", "(1099511627776,1099511627776)", "int64"}),
      row("reshape whose sizes overflow", [] { reshape(ones({8}), {kHuge, 4, -1}); },
          {"reshape", "(4611686018427387904,4,-1)", "int64"}),
      row("cat whose joined size overflows",
          [] {
            Tensor half = expand(ones({1}, kBool), {kHuge});
            cat({half, half}, 0);
          },
          {"cat", "dim 0", "int64"}),
      row("add whose broadcast result overflows",
          [] { add(expand(ones({1, 1}), {int64_t{1} << 40, 1}), expand(ones({1, 1}), {1, int64_t{1} << 40})); },
          {"(1099511627776,1099511627776)", "9223372036854775807 bytes"}),
      row("matmul whose broadcast batch overflows",
          [] {
            matmul(expand(ones({1, 1, 2, 2}), {int64_t{1} << 40, 1, 2, 2}),
                   expand(ones({1, 1, 2, 2}), {1, int64_t{1} << 40, 2, 2}));
          },
          {"(1099511627776,1099511627776,2,2)", "9223372036854775807 bytes"}),
      row("reshape to a different element count", [] { reshape(ones({2, 3}), {4, 2}); },
          {"reshape", "(4,2)", "(2,3)", "6 elements"}),
      row("view of a transposed tensor", [] { view(transpose(ones({2, 3}), 0, 1), {6}); },
          {"view", "not contiguous"}),
      // ---- dims and ranges ---------------------------------------------------------------
      row("sum over dim 5 of a 2-d tensor", [] { sum(ones({2, 3}), {5}); }, {"sum", "dim 5", "(2,3)"}),
      row("transpose with a dim out of range", [] { transpose(ones({2, 3}), 0, -3); },
          {"transpose", "dim -3", "(2,3)", "-2..1"}),
      row("narrow past the end", [] { narrow(ones({4, 5}), 1, 3, 4); },
          {"narrow", "start 3", "length 4", "size 5"}),
      row("slice with step 0", [] { slice(ones({4}), 0, 0, 4, 0); }, {"slice", "step must be >= 1", "got 0"}),
      row("cat of mismatched shapes", [] { cat({ones({2, 3}), ones({2, 4})}, 0); },
          {"cat", "tensors[1] (2,4)", "tensors[0] (2,3)", "dim 0"}),
      row("cat of an empty list", [] { cat({}, 0); }, {"cat", "at least one tensor"}),
      row("permute with a repeated dim", [] { permute(ones({2, 3}), {0, 0}); },
          {"permute", "[0,0]", "not a permutation", "(2,3)"}),
      row("softmax of a 0-d tensor along dim 1", [] { softmax(scalar(1), 1); }, {"softmax", "dim 1", "()"}),
      // ---- operand shapes, dtypes and devices --------------------------------------------
      row("matmul with differing inner dims", [] { matmul(ones({2, 3}), ones({4, 5})); },
          {"matmul", "inner dimensions", "(2,3)", "(4,5)"}),
      row("add of shapes that do not broadcast", [] { add(ones({2, 3}), ones({4})); },
          {"add", "(2,3)", "(4,)", "broadcast"}),
      row("mul of float32 and float64", [] { mul(ones({2}), ones({2}, kF64)); },
          {"mul", "dtypes differ", "float32", "float64"}),
      row("exp of an int64 tensor", [] { exp(arange(3)); }, {"exp", "int64", "float"}),
      row("masked_fill with a float mask", [] { masked_fill(ones({2}), ones({2}), 0); },
          {"masked_fill", "mask", "bool"}),
      // attention: every entry's errors come from AttentionSpec::check, naming the entry
      row("fused_attention with dropout_p 1.5 in training",
          [] {
            AttentionOptions o;
            o.training = true;
            o.dropout_p = 1.5;
            fused_attention(ones({1, 2, 3, 4}), ones({1, 2, 5, 4}), ones({1, 2, 5, 4}), o);
          },
          {"fused_attention", "dropout_p", "[0, 1]", "1.5"}),
      row("scaled_dot_product_attention with a key_padding_mask of another batch",
          [] {
            AttentionOptions o;
            o.key_padding_mask = padding_mask({5, 5}, 5);
            scaled_dot_product_attention(ones({1, 3, 4}), ones({1, 5, 4}), ones({1, 5, 4}), o);
          },
          {"scaled_dot_product_attention", "key_padding_mask", "(B,S) = (1,5)", "(2,5)"}),
      row("MultiHeadAttention with a float attn_mask",
          [] { nn::MultiHeadAttention(4, 2).forward(ones({2, 3, 4}), ones({2, 3, 4}), ones({2, 3, 4}),
                                                    {.attn_mask = ones({3, 3})}); },
          {"MultiHeadAttention", "attn_mask", "bool", "float32 (3,3)"}),
      row("layer_norm over a shape x does not end in", [] { layer_norm(ones({2, 3}), {4}); },
          {"layer_norm", "(4,)", "(2,3)"}),
      row("embedding index past the table", [] { embedding(tensor_i64({0, 7}), ones({5, 2})); },
          {"embedding", "7", "5"}),
      row("embedding with float indices", [] { embedding(ones({2}), ones({5, 2})); },
          {"embedding", "index must be int64", "float32"}),
      row("cross_entropy target past the classes", [] { cross_entropy(ones({2, 3}), tensor_i64({0, 3})); },
          {"cross_entropy", "target", "3"}),
      row("cross_entropy with a negative target", [] { cross_entropy(ones({2, 3}), tensor_i64({-2, 0})); },
          {"cross_entropy", "target", "-2"}),
      row("cross_entropy with label_smoothing 2", [] { cross_entropy(ones({2, 3}), tensor_i64({0, 1}),
                                                                     {.label_smoothing = 2}); },
          {"cross_entropy", "label_smoothing", "2"}),
      row("dropout with p = 1.5", [] { dropout(ones({4}), 1.5, true); }, {"dropout", "p", "1.5"}),
      row("a tensor on a GPU that is not there", [] { zeros({2}, kF32, Device::cuda(7)); },
          {"zeros", "cannot allocate 8 bytes", "cuda:7", "cuda_malloc"}),
      // ---- values --------------------------------------------------------------------------
      row("item() of a 3-element tensor", [] { ones({3}).item(); }, {"item", "one-element", "(3,)"}),
      row("to_vector<double> of a float32 tensor", [] { ones({3}).to_vector<double>(); },
          {"float64", "float32"}),
      row("data<int64_t> of a float32 tensor", [] { ones({3}).data<int64_t>(); }, {"data", "int64", "float32"}),
      row("use of an undefined tensor", [] { Tensor().shape(); }, {"undefined"}),
      // ---- autograd -----------------------------------------------------------------------
      row("requires_grad_ on an int64 tensor", [] { arange(3).requires_grad_(); },
          {"requires_grad_", "floating", "int64"}),
      row("requires_grad_ on a non-leaf", [] { mul(leaf(2), leaf(2)).requires_grad_(); },
          {"requires_grad_", "not a leaf", "mul"}),
      row("backward of a non-scalar without a gradient", [] { mul(leaf(3), 2.0).backward(); },
          {"backward", "(3,)", "grad"}),
      row("backward twice through freed saved tensors",
          [] {
            Tensor x = leaf(3), y = sum(mul(x, x));
            y.backward();
            y.backward();
          },
          {"backward", "'sum'", "freed its saved tensors", "retain_graph"}),
      row("backward of a tensor that does not require grad", [] { sum(ones({3})).backward(); },
          {"backward", "require"}),
      // ---- optimizers ---------------------------------------------------------------------
      row("SGD with lr < 0", [] { SGD({{"w", leaf(2)}}, {.lr = -0.1}); }, {"sgd", "lr", ">= 0", "-0.1"}),
      row("AdamW with lr NaN", [] { AdamW({{"w", leaf(2)}}, {.lr = kNaN}); }, {"adamw", "lr", "nan"}),
      row("Adam with beta1 = 1", [] { Adam({{"w", leaf(2)}}, {.beta1 = 1}); }, {"adam", "beta1", "[0, 1)", "got 1"}),
      row("an optimizer given a non-leaf", [] { SGD({{"w2", mul(leaf(2), 2.0)}}); },
          {"sgd", "'w2'", "not a leaf", "mul"}),
      row("an optimizer given a tensor without requires_grad", [] { SGD({{"w", ones({2})}}); },
          {"sgd", "'w'", "does not require grad"}),
      row("an optimizer given the same parameter twice",
          [] {
            Tensor w = leaf(2);
            SGD({{"a", w}, {"b", w}});
          },
          {"sgd", "'b'", "shares its storage", "'a'"}),
      row("clip_grad_norm with a negative max_norm", [] { clip_grad_norm({{"w", leaf(2)}}, -1); },
          {"clip_grad_norm", "max_norm", "-1"}),
  };
}

}  // namespace tg::test
