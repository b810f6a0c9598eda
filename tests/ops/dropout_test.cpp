#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <omp.h>

#include "core/rng.h"
#include "cuda_parity_test_util.h"
#include "dropout_draw_rule.h"
#include "ops/common/philox_lanes.h"
#include "ops/dropout/dropout.h"
#include "higher_order_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// How many elements of a dropout output are non-zero (the input has no zeros).
int64_t count_kept(const Tensor& out) {
  int64_t kept = 0;
  for (double v : to_dtype_copy(out, kF64).to_vector<double>()) kept += v != 0;
  return kept;
}

}  // namespace

TEST_CASE("dropout: hand-worked forward and backward, mask from the draw rule") {
  // p = 0.75: a kept element is scaled by 1 / (1 - 0.75) = 4; element i is kept exactly when
  // dropout_uniform_at(seed, 0, i, 0.75) > 0.75 (the generator starts at offset 0).
  Tensor x = tensor({1, -2, 3, 0.5, 10, -7, 2, 8, 6}, {3, 3}, kF64);
  x.requires_grad_();
  Generator gen(42);
  Tensor y = dropout(x, 0.75, true, gen);
  CHECK(gen.offset() == 2);  // 9 elements, 8 per Philox counter: ceil(9 / 8) counters
  std::vector<double> xv = x.to_vector<double>(), expected(9), expected_dx(9);
  int kept = 0;
  for (uint64_t i = 0; i < 9; ++i) {
    bool keep = dropout_uniform_at(42, 0, i, 0.75) > 0.75;
    kept += keep;
    expected[i] = keep ? 4 * xv[i] : 0;
    expected_dx[i] = keep ? 4 * 0.5 : 0;  // grad 0.5 everywhere
  }
  CHECK(kept > 0);
  CHECK(kept < 9);
  require_values(y, expected, 1e-12);
  CHECK(y.producer()->str().find("saved: keep") != std::string::npos);
  y.backward(full({3, 3}, 0.5, kF64));
  require_values(x.grad(), expected_dx, 1e-12);
}

TEST_CASE("dropout: philox_words on every path this CPU runs equals philox(), across 2^32 in the counter") {
  // Three groups of 32 counters from 2^32 - 40: the low word wraps inside the second group, and
  // the high word (c1 of philox()) goes from 0 to 1 there.
  const uint64_t seed = 0x0123456789abcdefULL, counter = (uint64_t{1} << 32) - 40;
  const int64_t count = 3 * kPhiloxWords;
  for (const PhiloxPath path : {PhiloxPath::avx512, PhiloxPath::avx2, PhiloxPath::baseline}) {
    if (!cpu_runs(path)) continue;
    INFO("path ", static_cast<int>(path));
    std::vector<uint32_t> bits(count + 1, 7);  // one word past the end, which must stay
    philox_words(bits.data(), count, seed, counter, path);
    for (int64_t e = 0; e < count; ++e) REQUIRE(bits[e] == philox(seed, counter + e / 4)[e % 4]);
    CHECK(bits[count] == 7);
  }
}

TEST_CASE("dropout: numerics version 3 draws 16 bits for p in [2^-8, 1 - 2^-8], 32 elsewhere and before") {
  Tensor x = ones({1001}, kF64);  // the general loop (float32's is in fast_paths_test.cpp); 1001 % 8 != 0
  for (int64_t version = kFirstNumerics; version <= kLatestNumerics; ++version)
    for (double p : {std::ldexp(1.0, -9), std::ldexp(1.0, -8), 0.3, 1 - std::ldexp(1.0, -8), 1 - std::ldexp(1.0, -9)}) {
      CAPTURE(version);
      CAPTURE(p);
      const NumericsGuard numerics(version);
      Generator gen(9);
      gen.reserve(3, 1);
      const DropoutDraw draw = reserve_dropout(gen, 1001, p);
      CHECK(draw.bits == (draws_16_bits(p, version) ? 16u : 32u));
      CHECK(draw.threshold == static_cast<uint64_t>(std::floor(std::ldexp(p, static_cast<int>(draw.bits)))));
      CHECK(draw.offset == 3);
      CHECK(gen.offset() == 3 + dropout_counters(1001, p, version));
      gen.set_state(9, 3);
      const std::vector<double> y = dropout(x, p, true, gen).to_vector<double>();
      int wrong = 0, kept = 0;
      for (uint64_t i = 0; i < y.size(); ++i) {
        kept += y[i] != 0;
        wrong += (y[i] != 0) != (dropout_uniform_at(9, 3, i, p, version) > p);
      }
      CHECK(wrong == 0);
      if (p == 0.3) CHECK(std::abs(kept / 1001.0 - 0.7) < 0.1);
    }
  // DropoutDraw's 16-bit draw of element e is half e % 2 of word e % 8 / 2 of its counter, the low
  // half first: kept at a threshold of exactly that half, dropped at one more.
  const PhiloxBlock words = philox(9, 3);
  for (const std::pair<uint64_t, uint32_t>& element : {std::pair<uint64_t, uint32_t>{5, words[2] >> 16},
                                                       std::pair<uint64_t, uint32_t>{6, words[3] & 0xffff}}) {
    const uint64_t e = element.first, half = element.second;
    CAPTURE(e);
    CHECK(DropoutDraw{.seed = 9, .offset = 3, .threshold = half, .bits = 16}.keeps(words, e));
    CHECK_FALSE(DropoutDraw{.seed = 9, .offset = 3, .threshold = half + 1, .bits = 16}.keeps(words, e));
  }
}

TEST_CASE("dropout: keeps about 1-p of 100k elements, scaled by 1/(1-p)") {
  Generator gen(3);
  Tensor x = ones({100000});
  for (double p : {0.1, 0.5, 0.9}) {
    CAPTURE(p);
    Tensor y = dropout(x, p, true, gen);
    // Binomial standard deviation is at most 0.0016 here; 0.01 is more than 6 of them.
    CHECK(std::abs(count_kept(y) / 1e5 - (1 - p)) < 0.01);
    double worst = 0;  // largest relative distance of a kept value from 1/(1-p)
    for (float v : y.to_vector<float>())
      if (v != 0) worst = std::max(worst, std::abs(v * (1 - p) - 1));
    CHECK(worst < 1e-6);
  }
}

TEST_CASE("dropout: the mask depends on the seed and offset only, not on the thread count") {
  Tensor x = ones({100001});  // above the parallel grain, and not a multiple of 4
  Generator a(5), b(5);
  std::vector<float> first = dropout(x, 0.3, true, a).to_vector<float>();
  CHECK(dropout(x, 0.3, true, b).to_vector<float>() == first);  // same seed, same mask
  CHECK(a.offset() == 12501);  // ceil(100001 / 8) counters
  CHECK(dropout(x, 0.3, true, a).to_vector<float>() != first);  // the next draw differs

  const int threads = omp_get_max_threads();
  std::vector<std::vector<float>> by_threads;
  for (int t : {1, 2}) {
    omp_set_num_threads(t);
    Generator gen(5);
    by_threads.push_back(dropout(x, 0.3, true, gen).to_vector<float>());
  }
  omp_set_num_threads(threads);
  CHECK(by_threads[0] == first);
  CHECK(by_threads[1] == first);
}

TEST_CASE("dropout: eval mode and p = 0 are the identity, p = 1 gives zeros and zero gradient") {
  Tensor x = tensor({1, 2, 3, 4}, {2, 2});
  x.requires_grad_();
  Generator gen(1);
  for (Tensor y : {dropout(x, 0.5, false, gen), dropout(x, 0, true, gen)}) {
    CHECK(y.id() == x.id());  // x itself: no copy, no tape entry
    CHECK(y.is_leaf());
  }
  CHECK(gen.offset() == 0);  // nothing was drawn

  Tensor z = tensor({1, std::numeric_limits<double>::infinity(), -2, 5}, {2, 2}, kF64);
  z.requires_grad_();
  Tensor y = dropout(z, 1, true, gen);
  require_values(y, {0, 0, 0, 0});  // no inf * 0 = NaN, no division by zero
  y.backward(full({2, 2}, 3.0, kF64));
  require_values(z.grad(), {0, 0, 0, 0});
}

TEST_CASE("gradcheck dropout") {
  // The same generator state at every evaluation, so every evaluation draws the same mask.
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);
    return dropout(in[0], 0.4, true, gen);
  };
  require_gradcheck("dropout", fn, {rand64({5}, 1)});
  require_gradcheck("dropout", fn, {rand64({2, 3}, 2)});
  require_gradcheck("dropout", fn, {rand64({4, 5, 3}, 3)});
  require_gradcheck("dropout", fn, {noncontig64({3, 4}, 4)});
}

TEST_CASE("dropout: float32 matches float64, non-contiguous input uses the row-major index") {
  Tensor x64 = noncontig64({6, 5}, 9).detach();
  Tensor x32 = to_dtype_copy(x64, kF32);
  x64.requires_grad_();
  x32.requires_grad_();
  Generator g64(11), g32(11);
  Tensor y64 = dropout(x64, 0.5, true, g64), y32 = dropout(x32, 0.5, true, g32);
  require_close(y32, y64, 1e-6, 1e-6);
  // The mask is that of a contiguous copy: element i of the row-major order uses draw i.
  Generator gc(11);
  require_close(dropout(to_dtype_copy(x64, kF64), 0.5, true, gc), y64, 0, 0);
  Tensor g = rand64({6, 5}, 10).detach();
  y64.backward(g);
  y32.backward(to_dtype_copy(g, kF32));
  CHECK(x32.grad().dtype() == kF32);
  require_close(x32.grad(), x64.grad(), 1e-6, 1e-6);
}

TEST_CASE("dropout: errors name the op and p") {
  Tensor x = ones({2, 3});
  CHECK_THROWS_WITH_AS(dropout(x, -0.1, true), doctest::Contains("dropout: p must be in [0, 1], got -0.1"), Error);
  CHECK_THROWS_WITH_AS(dropout(x, 1.5, false), doctest::Contains("dropout: p must be in [0, 1], got 1.5"), Error);
  CHECK_THROWS_WITH_AS(dropout(x, std::nan(""), true), doctest::Contains("got nan"), Error);
  CHECK_THROWS_WITH_AS(dropout(tensor_i64({1, 2}), 0.5, true), doctest::Contains("dropout"), Error);
  CHECK_THROWS_WITH_AS(dropout(Tensor(), 0.5, true), doctest::Contains("dropout"), Error);
}

TEST_CASE("dropout: CUDA matches CPU (forward and backward)") {
  if (!gpu_available_or_skip()) return;
  // The same generator state on both devices: the same mask, so the values match exactly.
  auto with = [](double p, uint64_t seed) {
    return [p, seed](const std::vector<Tensor>& in) {
      Generator gen(seed);
      return dropout(in[0], p, true, gen);
    };
  };
  require_cuda_matches_cpu_with_grads("dropout p 0.4 (5)", with(0.4, 7), {rand64({5}, 1)});
  require_cuda_matches_cpu_with_grads("dropout p 0.5 (4,5,3)", with(0.5, 8), {rand64({4, 5, 3}, 2)});
  require_cuda_matches_cpu_with_grads("dropout p 0.3 non-contiguous (3,4)", with(0.3, 9), {noncontig64({3, 4}, 3)});
  require_cuda_matches_cpu_with_grads("dropout p 1 (2,3)", with(1, 10), {rand64({2, 3}, 4)});
}

TEST_CASE("dropout: a seed gives the same mask on the CPU and the GPU") {
  if (!gpu_available_or_skip()) return;
  const Device gpu = Device::cuda();
  for (int64_t n : {1, 4, 7, 100001})  // whole and partial Philox blocks, and more threads than one grid
    for (int64_t version : {kLatestNumerics, int64_t{2}})  // 16-bit draws, then 32-bit ones
      for (DType dtype : {kF32, kF64}) {
        CAPTURE(n);
        CAPTURE(version);
        CAPTURE(dtype_name(dtype));
        const NumericsGuard numerics(version);
        Tensor x = to_dtype_copy(rand64({n}, 5, 0.5, 1.5).detach(), dtype);  // no zeros: kept = non-zero
        Generator on_cpu(123), on_gpu(123);
        on_cpu.set_state(123, 17), on_gpu.set_state(123, 17);  // not at offset 0
        Tensor y_cpu = dropout(x, 0.3, true, on_cpu);
        Tensor y_gpu = dropout(to_device_copy(x, gpu), 0.3, true, on_gpu);
        CHECK(on_gpu.offset() == on_cpu.offset());
        REQUIRE(y_gpu.is_cuda());
        require_close(to_device_copy(y_gpu, kCPU), y_cpu, 0, 0);  // bit for bit
        // The mask itself is dropout_uniform_at(seed, offset, i, p) > p.
        const std::vector<double> yv = to_dtype_copy(y_cpu, kF64).to_vector<double>();
        for (uint64_t i = 0; i < std::min<uint64_t>(n, 64); ++i)
          CHECK((yv[i] != 0) == (dropout_uniform_at(123, 17, i, 0.3) > 0.3));
      }
  Tensor x = to_device_copy(ones({2, 3}), gpu);
  CHECK(dropout(x, 0.5, false).id() == x.id());  // eval mode: x itself, on any device
}

TEST_CASE("dropout: f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  auto fn = [](const std::vector<Tensor>& in) {
    Generator gen(7);
    return dropout(in[0], 0.4, true, gen);
  };
  require_gradcheck("dropout", fn, on_gpu({rand64({4, 5, 3}, 6)}));
  require_gradcheck("dropout", fn, on_gpu({noncontig64({3, 4}, 7)}));
}

TEST_CASE("dropout with a given mask: hand-worked forward and backward") {
  // p = 0.5: kept elements are doubled, the others are 0; so is the gradient.
  Tensor x = tensor({1, -2, 3, 4, -5, 6}, {2, 3}, kF64).requires_grad_();
  Tensor keep = tensor_bool({true, false, false, true, true, false}, {2, 3});
  Tensor y = dropout(x, keep, 0.5);
  require_values(y, {2, 0, 0, 8, -10, 0}, 0);
  CHECK(y.producer()->op == "dropout");
  CHECK(y.producer()->str().find("saved: keep") != std::string::npos);
  y.backward(tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64));
  require_values(x.grad(), {2, 0, 0, 8, 10, 0}, 0);
  require_values(dropout(x, keep, 0), {1, 0, 0, 4, -5, 0}, 0);  // p = 0: the mask alone

  // A non-contiguous mask is read by index: the transposed view of a (3,2) mask.
  Tensor t = make_view(tensor_bool({true, true, false, false, false, true}, {3, 2}), {2, 3}, {1, 2}, 0);
  require_values(dropout(x, t, 0.5), {2, 0, 0, 8, 0, 12}, 0);
}

TEST_CASE("dropout with a given mask: the mask a draw saved gives back that draw") {
  Tensor x = rand64({4, 5}, 1).detach();
  Generator gen(3);
  Tensor drawn = dropout(x.requires_grad_(), 0.3, true, gen);
  const Tensor keep = drawn.producer()->saved.at(0).tensor;
  REQUIRE(keep.dtype() == kBool);
  require_close(dropout(x, keep, 0.3), drawn, 0, 0);
}

TEST_CASE("dropout with a given mask: gradcheck") {
  auto with = [](double p) { return [p](const std::vector<Tensor>& in) { return dropout(in[0], in[1], p); }; };
  Tensor mask = tensor_bool({true, false, true, true, false, false}, {2, 3});
  require_gradcheck("dropout", with(0.4), {rand64({2, 3}, 1), mask});
  require_gradcheck("dropout", with(0), {rand64({2, 3}, 2), mask});
  require_gradcheck("dropout", with(0.25), {noncontig64({3, 4}, 3),
                                            tensor_bool({true, true, false, true, false, true, false, false, true,
                                                         true, true, false}, {3, 4})});
}

TEST_CASE("dropout with a given mask: errors name the op, the mask and x") {
  Tensor x = ones({2, 3});
  Tensor keep = tensor_bool({true, false, true, false, true, false}, {2, 3});
  CHECK_THROWS_WITH_AS(dropout(x, ones({2, 3}), 0.5),
                       doctest::Contains("dropout: the keep mask must be bool, of x's shape and on x's device, "
                                         "but keep is (2,3) float32 on cpu and x is (2,3) float32 on cpu"), Error);
  CHECK_THROWS_WITH_AS(dropout(x, tensor_bool({true, false}), 0.5), doctest::Contains("keep is (2,) bool"), Error);
  CHECK_THROWS_WITH_AS(dropout(x, keep, 1), doctest::Contains("dropout: with a given keep mask p must be in [0, 1)"),
                       Error);
  CHECK_THROWS_WITH_AS(dropout(x, keep, -0.5), doctest::Contains("dropout: p must be in [0, 1], got -0.5"), Error);
  CHECK_THROWS_WITH_AS(dropout(x, Tensor(), 0.5), doctest::Contains("dropout"), Error);
  CHECK_THROWS_WITH_AS(dropout(tensor_i64({1, 2}), tensor_bool({true, true}), 0.5), doctest::Contains("dropout"),
                       Error);
}

TEST_CASE("dropout with a given mask: CUDA matches CPU, and f64 gradcheck on the GPU") {
  if (!gpu_available_or_skip()) return;
  auto with = [](double p) { return [p](const std::vector<Tensor>& in) { return dropout(in[0], in[1], p); }; };
  Tensor mask = tensor_bool({true, false, true, true, false, false}, {2, 3});
  require_cuda_matches_cpu_with_grads("dropout mask (2,3) p 0.4", with(0.4), {rand64({2, 3}, 1), mask});
  Tensor mask_t = make_view(tensor_bool({true, true, false, false, true, true, false, true, false, true, false, true},
                                        {4, 3}), {3, 4}, {1, 3}, 0);
  require_cuda_matches_cpu_with_grads("dropout non-contiguous x and mask (3,4)", with(0.25),
                                      {noncontig64({3, 4}, 2), mask_t});
  require_gradcheck("dropout", with(0.4), on_gpu({rand64({2, 3}, 3), mask}));
  CHECK_THROWS_WITH_AS(dropout(to_device_copy(ones({2, 3}), Device::cuda()), mask, 0.5),
                       doctest::Contains("keep is (2,3) bool on cpu and x is (2,3) float32 on cuda:0"), Error);
}

TEST_CASE("dropout: second order, forward mode and the reference rule, drawn and with a given mask") {
  const GradcheckFn drawn = [](const std::vector<Tensor>& in) {
    Generator gen(7);  // the same mask at every evaluation
    return dropout(in[0], 0.4, true, gen);
  };
  require_second_order(drawn, {rand64({3, 4}, 1)});
  require_forward_mode(drawn, {noncontig64({3, 4}, 2)});
  require_reference_matches_fast(drawn, {noncontig64({3, 4}, 2)});
  const Tensor keep = tensor_bool({true, false, true, true, false, true}, {2, 3});
  const GradcheckFn given = [&](const std::vector<Tensor>& in) { return dropout(in[0], keep, 0.25); };
  require_second_order(given, {rand64({2, 3}, 3)});
  require_forward_mode(given, {rand64({2, 3}, 3)});
  require_reference_matches_fast(given, {rand64({2, 3}, 3)});
  // eval mode returns x itself: its tangent passes unchanged
  require_forward_mode([](const std::vector<Tensor>& in) { return dropout(in[0], 0.5, false); }, {rand64({2}, 4)});
}
