#include "ops/cross_entropy/cross_entropy.h"

#include <bit>
#include <cmath>
#include <cstdint>

#include "cuda_parity_test_util.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {
// logits (2,3) [[1,2,3],[1,1,1]], target [2, 0]. By hand:
//   row 0: lse = log(e + e^2 + e^3) = 3 + log(1 + e^-1 + e^-2) = 3.40760596
//          loss = lse - x_2 = 0.40760596;  softmax = (0.09003057, 0.24472847, 0.66524096)
//   row 1: lse = 1 + log 3;  loss = log 3 = 1.09861229;  softmax = (1/3, 1/3, 1/3)
//   mean = 0.75310913, sum = 1.50621825
Tensor hand_logits() { return tensor({1, 2, 3, 1, 1, 1}, {2, 3}, kF64).requires_grad_(); }
const std::vector<double> kSoftmax0 = {0.09003057317038048, 0.2447284710547977, 0.665240955774822};

// require_values compares against a 1-D tensor; reduced losses are 0-d.
void require_scalar(const Tensor& loss, double expected, double atol = 1e-6) {
  require_close(loss, scalar(expected, kF64), atol, 0);
}

CrossEntropyOptions with(Reduction r, int64_t ignore_index = -100, double label_smoothing = 0) {
  return {r, ignore_index, label_smoothing};
}
}  // namespace

TEST_CASE("cross_entropy: hand-worked 2x3 forward and backward") {
  Tensor target = tensor_i64({2, 0});
  Tensor x = hand_logits();
  Tensor loss = cross_entropy(x, target);
  require_scalar(loss, 0.7531091265562448);
  loss.backward();
  // dlogits = (softmax - onehot) / 2 (mean over 2 targets)
  const double s0 = kSoftmax0[0], s1 = kSoftmax0[1], s2 = kSoftmax0[2];
  require_values(x.grad(), {s0 / 2, s1 / 2, (s2 - 1) / 2, (1. / 3 - 1) / 2, 1. / 6, 1. / 6});

  require_scalar(cross_entropy(x, target, with(Reduction::sum)), 1.5062182531124897);
  Tensor none = cross_entropy(x, target, with(Reduction::none));
  CHECK(none.shape() == Shape{2});
  require_values(none, {0.40760596444438013, 1.0986122886681096});
}

TEST_CASE("cross_entropy: ignore_index") {
  Tensor x = hand_logits();
  Tensor target = tensor_i64({2, -100});
  Tensor loss = cross_entropy(x, target);  // mean over the one non-ignored target
  require_scalar(loss, 0.40760596444438013);
  loss.backward();
  require_values(x.grad(), {kSoftmax0[0], kSoftmax0[1], kSoftmax0[2] - 1, 0, 0, 0});
  require_values(cross_entropy(x, target, with(Reduction::none)), {0.40760596444438013, 0});
  // A class index can be the ignored value too.
  require_scalar(cross_entropy(x, tensor_i64({2, 1}), with(Reduction::sum, 1)), 0.40760596444438013);
}

TEST_CASE("cross_entropy: label smoothing") {
  // eps = 0.3, C = 3: q = 0.7 onehot + 0.1; loss = lse - 0.7 x_t - 0.1 sum(x)
  //   row 0: 3.40760596 - 2.1 - 0.6 = 0.70760596;  row 1: uniform softmax, loss = log 3
  Tensor x = hand_logits();
  Tensor loss = cross_entropy(x, tensor_i64({2, 0}), with(Reduction::sum, -100, 0.3));
  require_scalar(loss, 0.7076059644443804 + 1.0986122886681096);
  loss.backward();
  const double s0 = kSoftmax0[0], s1 = kSoftmax0[1], s2 = kSoftmax0[2];
  require_values(x.grad(), {s0 - 0.1, s1 - 0.1, s2 - 0.8, 1. / 3 - 0.8, 1. / 3 - 0.1, 1. / 3 - 0.1});
}

TEST_CASE("cross_entropy: every target ignored gives 0 and a zero gradient, not NaN") {
  Tensor x = hand_logits();
  Tensor target = tensor_i64({-100, -100});
  for (Reduction r : {Reduction::mean, Reduction::sum}) {
    x.zero_grad();
    Tensor loss = cross_entropy(x, target, with(r, -100, 0.1));
    require_scalar(loss, 0);
    loss.backward();
    CHECK(all_finite(x.grad()));
    require_values(x.grad(), {0, 0, 0, 0, 0, 0});
  }
}

TEST_CASE("cross_entropy: stable for large logits") {
  // Without the max subtraction exp(1000) overflows. Row (1000, 0): loss of target 1 = 1000.
  Tensor loss = cross_entropy(tensor({1000, 0}, {1, 2}), tensor_i64({1}));
  require_scalar(loss, 1000, 1e-3);
}

TEST_CASE("cross_entropy: large enough for the OpenMP path") {
  // 2048 rows of 20 equal logits: softmax is uniform, every loss is log 20, and the mean's
  // gradient is (1/20 - onehot) / 2048.
  const int64_t N = 2048, C = 20;
  std::vector<int64_t> ids(N);
  for (int64_t n = 0; n < N; ++n) ids[n] = n % C;
  Tensor x = zeros({N, C}, kF64).requires_grad_();
  Tensor loss = cross_entropy(x, tensor_i64(ids));
  require_scalar(loss, std::log(20.0), 1e-12);
  loss.backward();
  std::vector<double> expected(N * C, 1.0 / C / N);
  for (int64_t n = 0; n < N; ++n) expected[n * C + ids[n]] -= 1.0 / N;
  require_values(x.grad(), expected, 1e-15);
}

// The float32 forward takes rows four at a time (kRowGroup, ops/common/vec_math.h): each row's
// loss must come out bit for bit as when it is alone, whatever the number of classes, with label
// smoothing (which adds each row's sum of logits) and an ignored row among them.
TEST_CASE("cross_entropy: float32 rows taken four at a time equal each row alone, bit for bit") {
  constexpr int64_t kRows = 6;  // a group of four, then two alone
  CrossEntropyOptions opts;
  opts.reduction = Reduction::none;
  opts.label_smoothing = 0.1;
  opts.ignore_index = -1;
  for (int64_t C : {1, 2, 15, 16, 17, 64, 100}) {
    CAPTURE(C);
    const std::vector<double> xv = rand64({kRows, C}, 120 + C, -4, 4).to_vector<double>();
    std::vector<int64_t> target(kRows);
    for (int64_t r = 0; r < kRows; ++r) target[r] = r == 2 ? -1 : (r * 7) % C;
    const std::vector<float> loss =
        cross_entropy(tensor(xv, {kRows, C}, kF32), tensor_i64(target, {kRows}), opts).to_vector<float>();
    for (int64_t r = 0; r < kRows; ++r) {
      CAPTURE(r);
      const Tensor row = tensor(std::vector<double>(xv.begin() + r * C, xv.begin() + (r + 1) * C), {1, C}, kF32);
      const float alone = cross_entropy(row, tensor_i64({target[r]}, {1}), opts).to_vector<float>()[0];
      CHECK(std::bit_cast<uint32_t>(loss[r]) == std::bit_cast<uint32_t>(alone));
    }
  }
}

TEST_CASE("gradcheck cross_entropy") {
  auto ce = [](Tensor target, CrossEntropyOptions opts) {
    return [target, opts](const std::vector<Tensor>& in) { return cross_entropy(in[0], target, opts); };
  };
  Tensor t4 = tensor_i64({0, 4, 2, 1}), t4_ignored = tensor_i64({3, -100, 0, -100});
  for (Reduction r : {Reduction::none, Reduction::mean, Reduction::sum}) {
    CAPTURE(reduction_name(r));
    require_gradcheck("cross_entropy", ce(t4, with(r)), {rand64({4, 5}, 1, -2, 2)});
    require_gradcheck("cross_entropy", ce(t4_ignored, with(r)), {rand64({4, 5}, 2, -2, 2)});
    require_gradcheck("cross_entropy", ce(t4_ignored, with(r, -100, 0.2)), {rand64({4, 5}, 3, -2, 2)});
    // (B, T, C) = (2, 3, 5) with the class dim last, one position ignored (class 2 as ignore_index).
    require_gradcheck("cross_entropy", ce(tensor_i64({0, 4, 2, 1, 3, 3}, {2, 3}), with(r, 2, 0.1)),
                      {rand64({2, 3, 5}, 4, -2, 2)});
    require_gradcheck("cross_entropy", ce(tensor_i64({1, 0, 2}, {3}), with(r)), {noncontig64({3, 4}, 5)});
    require_gradcheck("cross_entropy", ce(tensor_i64({4, 0, 1, 3, -100, 2}, {2, 3}), with(r)),
                      {noncontig64({2, 3, 5}, 6)});
  }
  // One row: logits (C), target () -> loss ().
  require_gradcheck("cross_entropy", ce(full({}, 2, kI64), with(Reduction::mean)), {rand64({4}, 7)});
  // A broadcast (stride-0) incoming gradient for reduction none.
  require_gradcheck("cross_entropy",
                    [](const std::vector<Tensor>& in) {
                      return sum(cross_entropy(in[0], tensor_i64({1, 2}), with(Reduction::none)));
                    },
                    {rand64({2, 3}, 8)});
}

TEST_CASE("cross_entropy: float32 matches float64") {
  Generator gen(11);
  Tensor x64 = randn({3, 4, 6}, kF64, kCPU, gen, 0, 3).requires_grad_();
  Tensor x32 = to_dtype_copy(x64, kF32).requires_grad_();
  Tensor target = tensor_i64({0, 5, 2, -100, 1, 1, 4, 3, 0, 5, -100, 2}, {3, 4});
  for (Reduction r : {Reduction::none, Reduction::mean, Reduction::sum}) {
    CAPTURE(reduction_name(r));
    x64.zero_grad(), x32.zero_grad();
    Tensor l64 = cross_entropy(x64, target, with(r, -100, 0.1)), l32 = cross_entropy(x32, target, with(r, -100, 0.1));
    CHECK(l32.dtype() == kF32);
    require_close(l32, l64, 1e-5);
    Tensor v = randn(l64.shape(), kF64, kCPU, gen);
    l64.backward(v);
    l32.backward(to_dtype_copy(v, kF32));
    CHECK(x32.grad().dtype() == kF32);
    require_close(x32.grad(), x64.grad(), 1e-6);
  }
}

TEST_CASE("cross_entropy: errors") {
  Tensor x = zeros({2, 3, 5});
  Tensor target = zeros({2, 3}, kI64);
  target.data<int64_t>()[5] = 7;  // position (1,2)
  CHECK_THROWS_WITH_AS(cross_entropy(x, target),
                       "cross_entropy: target 7 at position (1,2) is out of range [0, 5) for logits (2,3,5) and is not "
                       "ignore_index -100",
                       tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(zeros({2, 3}), tensor_i64({0, -1})),
                       doctest::Contains("cross_entropy: target -1 at position (1) is out of range"), tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(zeros({2, 3}), tensor({0, 1})),
                       "cross_entropy: target must be int64, got float32 (2,)", tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(x, zeros({3, 2}, kI64)),
                       "cross_entropy: target (3,2) must have logits' shape without the class dim: logits (2,3,5) -> "
                       "target (2,3) (the class dim is last)",
                       tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(zeros({2, 3}, kI64), tensor_i64({0, 1})),
                       doctest::Contains("cross_entropy: argument 'logits'"), tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(scalar(1), full({}, 0, kI64)),
                       "cross_entropy: logits must have a class dim (last) of size >= 1, got ()", tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(zeros({2, 3}), tensor_i64({0, 1}), with(Reduction::mean, -100, 1.5)),
                       "cross_entropy: label_smoothing must be in [0, 1], got 1.5", tg::Error);
}

TEST_CASE("cross_entropy: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  // The target is an input, so that it moves to the GPU with the logits.
  auto ce = [](CrossEntropyOptions opts) {
    return [opts](const std::vector<Tensor>& in) { return cross_entropy(in[0], in[1], opts); };
  };
  std::vector<int64_t> long_ids(6);
  for (int64_t n = 0; n < 6; ++n) long_ids[n] = n * 113 % 700;
  for (Reduction r : {Reduction::none, Reduction::mean, Reduction::sum}) {
    const std::string how = std::string(" reduction ") + reduction_name(r);
    require_cuda_matches_cpu_with_grads("cross_entropy (4,5)" + how, ce(with(r)),
                                        {rand64({4, 5}, 1, -2, 2), tensor_i64({0, 4, 2, 1})});
    require_cuda_matches_cpu_with_grads("cross_entropy (4,5) ignore_index, label_smoothing 0.2" + how,
                                        ce(with(r, -100, 0.2)),
                                        {rand64({4, 5}, 2, -2, 2), tensor_i64({3, -100, 0, -100})});
    require_cuda_matches_cpu_with_grads("cross_entropy (2,3,5) class last, ignore_index 2" + how, ce(with(r, 2, 0.1)),
                                        {rand64({2, 3, 5}, 3, -2, 2), tensor_i64({0, 4, 2, 1, 3, 3}, {2, 3})});
    require_cuda_matches_cpu_with_grads("cross_entropy non-contiguous (3,4)" + how, ce(with(r)),
                                        {noncontig64({3, 4}, 4), tensor_i64({1, 0, 2})});
    // Rows longer than a block (C = 700 > 256 threads).
    require_cuda_matches_cpu_with_grads("cross_entropy (6,700)" + how, ce(with(r, -100, 0.1)),
                                        {rand64({6, 700}, 5, -4, 4), tensor_i64(long_ids)});
    // Every target ignored: 0 and a zero gradient.
    require_cuda_matches_cpu_with_grads("cross_entropy all ignored" + how, ce(with(r)),
                                        {rand64({2, 3}, 6), tensor_i64({-100, -100})});
  }
  require_cuda_matches_cpu_with_grads("cross_entropy one row (4), target ()", ce(with(Reduction::mean)),
                                      {rand64({4}, 7), full({}, 2, kI64)});
  // Large logits stay finite: the loss of target 1 in row (1000, 0) is 1000.
  Tensor big = cross_entropy(tensor({1000, 0}, {1, 2}, kF32, Device::cuda()), tensor_i64({1}, {1}, Device::cuda()));
  CHECK(big.is_cuda());
  CHECK(big.item() == doctest::Approx(1000).epsilon(1e-6));
}

TEST_CASE("cross_entropy: f64 gradcheck on the GPU, targets checked on the host, device errors") {
  if (!gpu_available_or_skip()) return;
  const Device gpu = Device::cuda();
  for (Reduction r : {Reduction::none, Reduction::mean}) {
    CAPTURE(reduction_name(r));
    require_gradcheck("cross_entropy",
                      [r](const std::vector<Tensor>& in) { return cross_entropy(in[0], in[1], with(r, -100, 0.2)); },
                      on_gpu({rand64({4, 5}, 8, -2, 2), tensor_i64({3, -100, 0, 4})}));
  }
  Tensor x = zeros({2, 3, 5}, kF32, gpu);
  Tensor target = zeros({2, 3}, kI64);
  target.data<int64_t>()[5] = 7;  // position (1,2)
  CHECK_THROWS_WITH_AS(cross_entropy(x, to_device_copy(target, gpu)),
                       "cross_entropy: target 7 at position (1,2) is out of range [0, 5) for logits (2,3,5) and is not "
                       "ignore_index -100",
                       tg::Error);
  CHECK_THROWS_WITH_AS(cross_entropy(zeros({2, 3}, kF32, gpu), tensor_i64({0, 1})),
                       "cross_entropy: tensors are on different devices: (2,3) on cuda:0 and (2,) on cpu", tg::Error);
}

TEST_CASE("cross_entropy: second order, forward mode and the reference rule, for every reduction and option") {
  const Tensor target = tensor_i64({3, -100, 0, 4, 1, 3}, {2, 3});
  for (Reduction r : {Reduction::mean, Reduction::sum, Reduction::none}) {
    for (double smoothing : {0.0, 0.2}) {
      CAPTURE(reduction_name(r));
      CAPTURE(smoothing);
      const GradcheckFn fn = [&](const std::vector<Tensor>& in) {
        return cross_entropy(in[0], target, with(r, -100, smoothing));
      };
      require_second_order(fn, {rand64({2, 3, 5}, 1, -2, 2)});
      require_forward_mode(fn, {rand64({2, 3, 5}, 2, -2, 2)});
      require_reference_matches_fast(fn, {rand64({2, 3, 5}, 3, -2, 2)});
    }
  }
  // every target ignored: zero gradients by both rules
  const GradcheckFn ignored = [](const std::vector<Tensor>& in) {
    return cross_entropy(in[0], tensor_i64({-100, -100}), with(Reduction::mean, -100, 0.1));
  };
  require_reference_matches_fast(ignored, {rand64({2, 4}, 4)});
}
