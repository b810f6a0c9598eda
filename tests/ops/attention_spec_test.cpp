#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "nn/attention.h"
#include "nn/multi_head_attention.h"
#include "ops/common/attention_spec.h"
#include "ops/fused/fused_attention/fused_attention.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

Tensor plain64(const Shape& shape, uint64_t seed) { return rand64(shape, seed).detach(); }

// The message of the tg::Error that f throws; "" when it throws none.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A bad call: rejected by AttentionSpec::check for the kernels in `rejected_by` with `text`.
struct BadCall {
  const char* what;
  Tensor q, k, v;
  AttentionOptions options;
  std::vector<AttentionKernel> rejected_by;
  std::string text;
};

// q (1,2,3,4), k (1,2,5,4), v (1,2,5,3): scores (1,2,3,5).
std::vector<BadCall> bad_calls() {
  const Tensor q = plain64({1, 2, 3, 4}, 1), k = plain64({1, 2, 5, 4}, 2), v = plain64({1, 2, 5, 3}, 3);
  const std::vector<AttentionKernel> both{AttentionKernel::fused, AttentionKernel::composed};
  const std::vector<AttentionKernel> fused{AttentionKernel::fused};
  std::vector<BadCall> calls;
  auto add = [&](const char* what, const Tensor& q2, const Tensor& k2, const Tensor& v2, AttentionOptions o,
                 const std::vector<AttentionKernel>& kernels, std::string text) {
    calls.push_back({what, q2, k2, v2, std::move(o), kernels, std::move(text)});
  };
  add("int q", zeros({1, 2, 3, 4}, kI64), k, v, {}, both, "argument 'q' must be float32 or float64");
  add("k of another dtype", q, to_dtype_copy(k, kF32), v, {}, both, "dtypes differ");
  add("1-D q", plain64({4}, 4), k, v, {}, both, "need at least 2 dims (..., T, head_dim), got q (4,)");
  add("head sizes differ", q, plain64({1, 2, 5, 6}, 4), v, {}, both,
      "q and k head dims differ: q (1,2,3,4) k (1,2,5,6) v (1,2,5,3)");
  add("fewer values than keys", q, k, plain64({1, 2, 4, 3}, 4), {}, both,
      "k and v have different numbers of keys: q (1,2,3,4) k (1,2,5,4) v (1,2,4,3)");
  add("3-D q", reshape(q, {2, 3, 4}), k, v, {}, fused,
      "must be 4-D (B,H,T,hs), (B,H,S,hs), (B,H,S,hv), got q (2,3,4) k (1,2,5,4)");
  add("k with one head", q, plain64({1, 1, 5, 4}, 4), plain64({1, 1, 5, 3}, 5), {}, fused,
      "same (B,H) (no broadcasting)");
  add("batch dims that do not broadcast", q, plain64({1, 3, 5, 4}, 4), plain64({1, 3, 5, 3}, 5), {}, both,
      "q (1,2,3,4) k (1,3,5,4) v (1,3,5,3)");
  AttentionOptions o;
  o.attn_mask = zeros({3, 5}, kF64);
  add("float attn_mask", q, k, v, o, both,
      "attn_mask must be bool (true = masked out), got float64 (3,5); pass float masks as additive_mask");
  o.attn_mask = causal_mask(3, 4);
  add("attn_mask of the wrong shape", q, k, v, o, both,
      "attn_mask (3,4) does not broadcast to the scores (B,H,T,S) = (1,2,3,5)");
  o = {};
  o.key_padding_mask = padding_mask({5, 5}, 5);
  add("key_padding_mask of another batch", q, k, v, o, both, "key_padding_mask must be bool (B,S) = (1,5), got bool (2,5)");
  o.key_padding_mask = zeros({1, 5});
  add("float key_padding_mask", q, k, v, o, both, "key_padding_mask must be bool (B,S) = (1,5), got float32 (1,5)");
  o = {};
  o.additive_mask = zeros({3, 5}, kF32);
  add("additive_mask of another dtype", q, k, v, o, both, "additive_mask must have q's dtype float64, got float32 (3,5)");
  o.additive_mask = plain64({4, 5}, 5);
  add("additive_mask of the wrong shape", q, k, v, o, both,
      "additive_mask (4,5) does not broadcast to the scores (B,H,T,S) = (1,2,3,5)");
  o.additive_mask = rand64({3, 5}, 5);
  add("additive_mask that requires grad", q, k, v, o, fused, "additive_mask (3,5) requires grad");
  o = {};
  o.need_weights = true;
  add("need_weights", q, k, v, o, fused, "need_weights: the (T,S) weights are what this op never forms");
  o = {};
  o.scale = 0;
  add("scale 0", q, k, v, o, both, "scale must be a positive finite number, got 0");
  o = {};
  o.training = true;
  o.dropout_p = 1.5;
  add("dropout_p 1.5 in training", q, k, v, o, both, "dropout_p must be in [0, 1], got 1.5");
  return calls;
}

bool has_kernel(const std::vector<AttentionKernel>& kernels, AttentionKernel kernel) {
  return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("AttentionSpec::check rejects each bad call, naming the entry, for the kernels it cannot run on") {
  for (const BadCall& call : bad_calls()) {
    CAPTURE(call.what);
    for (AttentionKernel kernel : {AttentionKernel::fused, AttentionKernel::composed}) {
      CAPTURE(kernel == AttentionKernel::fused ? "fused" : "composed");
      const std::string error =
          error_of([&] { AttentionSpec::check({"an_entry"}, kernel, call.q, call.k, call.v, call.options); });
      if (has_kernel(call.rejected_by, kernel)) {
        CHECK(error.rfind("an_entry: ", 0) == 0);
        CHECK(error.find(call.text) != std::string::npos);
      } else {
        CHECK(error == "");  // the composed ops run it: batch dims broadcast, weights formed, mask gets a gradient
      }
    }
  }
}

TEST_CASE("AttentionSpec: fused_attention and scaled_dot_product_attention throw exactly the check's errors") {
  for (const BadCall& call : bad_calls()) {
    CAPTURE(call.what);
    const Tensor &q = call.q, &k = call.k, &v = call.v;
    const AttentionOptions& o = call.options;
    CHECK(error_of([&] { fused_attention(q, k, v, o); }) ==
          error_of([&] { AttentionSpec::check({"fused_attention"}, AttentionKernel::fused, q, k, v, o); }));
    CHECK(error_of([&] { scaled_dot_product_attention(q, k, v, o); }) ==
          error_of([&] {
            AttentionSpec::check({"scaled_dot_product_attention"}, AttentionKernel::composed, q, k, v, o);
          }));
  }
}

TEST_CASE("AttentionSpec: nn::MultiHeadAttention throws the check's errors, naming the module and (B,NH,T,S)") {
  nn::MultiHeadAttention mha(4, 2);
  mha.to_(kF64);
  const Tensor x = plain64({2, 3, 4}, 1), heads = plain64({2, 2, 3, 2}, 2);  // (B,T,E), (B,NH,T,hs)
  const AttentionEntry entry{"MultiHeadAttention", "(B,NH,T,S)", " (PyTorch's (B*NH,T,S) is accepted too)"};
  auto same_error = [&](const nn::MhaOptions& options, const std::string& text) {
    const std::string error = error_of([&] { mha.forward(x, x, x, options); });
    CHECK(error.find(text) != std::string::npos);
    AttentionOptions attention;  // what the module's fused kernel is asked for
    attention.attn_mask = options.attn_mask;
    attention.additive_mask = options.additive_mask;
    attention.key_padding_mask = options.key_padding_mask;
    attention.dropout_p = mha.dropout;
    attention.training = mha.is_training();
    CHECK(error == error_of([&] {
            AttentionSpec::check(entry, AttentionKernel::fused, heads, heads, heads, attention);
          }));
  };
  const Tensor float_mask = zeros({3, 3}, kF64), wide = zeros({3, 4}, kBool), padding = padding_mask({3}, 3);
  same_error({.attn_mask = float_mask}, "MultiHeadAttention: attn_mask must be bool");
  same_error({.attn_mask = wide},
             "MultiHeadAttention: attn_mask (3,4) does not broadcast to the scores (B,NH,T,S) = (2,2,3,3) (PyTorch's "
             "(B*NH,T,S) is accepted too)");
  same_error({.key_padding_mask = padding},
             "MultiHeadAttention: key_padding_mask must be bool (B,S) = (2,3), got bool (1,3)");
  const Tensor f32_mask = zeros({3, 3});
  same_error({.additive_mask = f32_mask},
             "MultiHeadAttention: additive_mask must have q's dtype float64, got float32 (3,3)");
}

TEST_CASE("AttentionSpec: each attention error is written once, in ops/common/attention_spec.cpp") {
  const std::string root = TAPEGRAD_SOURCE_DIR;
  const std::vector<std::string> sources = {
      "ops/common/attention_spec.cpp", "ops/fused/fused_attention/fused_attention.cpp", "nn/attention.cpp",
      "nn/attention_kernel.cpp", "nn/multi_head_attention.cpp"};
  for (const char* text : {"attn_mask must be bool (true = masked out)", "does not broadcast to the scores",
                           "key_padding_mask must be bool (B,S)", "additive_mask must have q's dtype",
                           "head dims differ", "different numbers of keys", "scale must be a positive finite",
                           "dropout_p must be in [0, 1]", "need_weights: "}) {
    CAPTURE(text);
    std::vector<std::string> holders;
    for (const std::string& file : sources)
      if (read_file(root + "/" + file).find(text) != std::string::npos) holders.push_back(file);
    CHECK(holders == std::vector<std::string>{"ops/common/attention_spec.cpp"});
  }
}

TEST_CASE("AttentionSpec: the scale defaults to 1/sqrt(head size), the scores' shape broadcasts q's and k's batch") {
  const Tensor q = plain64({2, 1, 3, 4}, 1), k = plain64({1, 2, 5, 4}, 2), v = plain64({1, 2, 5, 3}, 3);
  const AttentionSpec composed = AttentionSpec::check({"e"}, AttentionKernel::composed, q, k, v, {});
  CHECK(composed.scale() == 1 / std::sqrt(4.0));
  CHECK(composed.scores() == Shape{2, 2, 3, 5});
  CHECK(composed.kernel() == AttentionKernel::composed);
  AttentionOptions o;
  o.scale = 0.25;
  const Tensor k2 = plain64({2, 1, 5, 4}, 4), v2 = plain64({2, 1, 5, 3}, 5);
  const AttentionSpec fused = AttentionSpec::check({"e"}, AttentionKernel::fused, q, k2, v2, o);
  CHECK(fused.scale() == 0.25);
  CHECK(fused.scores() == Shape{2, 1, 3, 5});
  // A spec checked for the composed kernel allows what the fused op cannot run: it refuses it.
  CHECK(error_of([&] { fused_attention(AttentionSpec::check({"e"}, AttentionKernel::composed, q, k2, v2, o)); })
            .find("fused_attention: the call was checked for the composed kernel") != std::string::npos);
}
