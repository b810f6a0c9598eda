#pragma once
// A fused op beside the ops it replaces, for the tests that hold it to their bits: both run on
// copies of the same leaves (in `dtype`, with the inputs' strides), drawing from generators in
// one state, then backward from one gradient. `reread` inputs are also read by an x * x term of
// the loss, so that their gradients gather from two entries (as a layer's input read by its
// residual connection does); `frozen` inputs get no gradient.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "elementwise_test_util.h"
#include "ops/add/add.h"
#include "ops/mul/mul.h"
#include "ops/sum/sum.h"

namespace tg::test {

struct FusedAndUnfused {
  TensorList fused_in, unfused_in;
  Tensor fused, unfused;
  uint64_t fused_offset, unfused_offset;
};

using FusedPairFn = std::function<Tensor(const TensorList& in, Generator& gen)>;

inline FusedAndUnfused run_fused_and_unfused(const TensorList& inputs, DType dtype, const FusedPairFn& fused,
                                             const FusedPairFn& unfused, const std::vector<int>& reread,
                                             const std::vector<int>& frozen = {}) {
  FusedAndUnfused r;
  for (TensorList* in : {&r.fused_in, &r.unfused_in})
    for (size_t i = 0; i < inputs.size(); ++i) {
      const bool grad = std::find(frozen.begin(), frozen.end(), int(i)) == frozen.end();
      in->push_back(inputs[i].defined() ? copy_keeping_strides(inputs[i].detach(), dtype, kCPU).requires_grad_(grad)
                                        : Tensor());
    }
  Generator a(5), b(5);
  a.set_state(5, 9);
  b.set_state(5, 9);
  r.fused = fused(r.fused_in, a);
  r.unfused = unfused(r.unfused_in, b);
  r.fused_offset = a.offset(), r.unfused_offset = b.offset();
  const Tensor g = to_dtype_copy(rand64(r.fused.shape(), 14).detach(), dtype);
  for (auto [in, y] : {std::pair{&r.fused_in, r.fused}, std::pair{&r.unfused_in, r.unfused}}) {
    Tensor loss = sum(mul(y, g));
    for (int i : reread) loss = add(loss, sum(mul((*in)[i], (*in)[i])));
    loss.backward();
  }
  return r;
}

// The two runs' outputs, generator advances and gradients (where an input has one) bit for bit.
inline void require_same_as_unfused(const FusedAndUnfused& r) {
  CHECK(r.fused_offset == r.unfused_offset);
  require_close(r.fused, r.unfused, 0, 0);
  for (size_t i = 0; i < r.fused_in.size(); ++i)
    if (r.fused_in[i].defined() && r.fused_in[i].requires_grad()) {
      CAPTURE(i);
      REQUIRE(r.fused_in[i].grad().defined());  // every input that requires grad gets one
      require_close(r.fused_in[i].grad(), r.unfused_in[i].grad(), 0, 0);
    }
}

// A linear layer's inputs in the shapes the fused linear ops are held to linear's bits on: a
// product the team shares, one split over its depth, ragged edges over two blocks of k, a 3-D
// non-contiguous x without a bias, and one row.
struct LinearCase {
  const char* what;
  TensorList inputs;  // x, weight, bias
};
inline std::vector<LinearCase> linear_cases() {
  return {{"(300,128) -> 256: the team", {rand64({300, 128}, 1), rand64({256, 128}, 2), rand64({256}, 3)}},
          {"(8,4000) -> 40: split over the depth", {rand64({8, 4000}, 4), rand64({40, 4000}, 5), rand64({40}, 6)}},
          {"(37,600) -> 67: ragged, two blocks of k", {rand64({37, 600}, 7), rand64({67, 600}, 8), rand64({67}, 9)}},
          {"(4,5,7) non-contiguous, no bias", {noncontig64({4, 5, 7}, 10), rand64({6, 7}, 11), Tensor()}},
          {"(5,) -> 3: one row", {rand64({5}, 12), rand64({3, 5}, 13), rand64({3}, 14)}}};
}

// body(case, dtype, reread) for each case (a LinearCase, or a fused op's own with its `what`) in
// float32 and float64, with the inputs read once (reread empty) and with those of `rereads` read by
// the loss too (reread = rereads: their gradients gathered from two entries).
template <class Case, class Body>
void for_linear_cases(const std::vector<Case>& cases, const std::vector<int>& rereads, Body&& body) {
  for (const Case& c : cases)
    for (DType dtype : {kF32, kF64})
      for (bool reread : {false, true}) {
        CAPTURE(c.what);
        CAPTURE(dtype_name(dtype));
        CAPTURE(reread);
        body(c, dtype, reread ? rereads : std::vector<int>{});
      }
}

}  // namespace tg::test
