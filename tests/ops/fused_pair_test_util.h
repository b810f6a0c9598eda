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

}  // namespace tg::test
