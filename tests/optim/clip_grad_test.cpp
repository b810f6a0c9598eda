#include <omp.h>

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "optim_test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

// Gradients [3, 4] and [12]; "c" has none and is skipped.
std::vector<NamedParameter> three_params(const std::vector<double>& ga, const std::vector<double>& gb) {
  std::vector<NamedParameter> params = {param("a", {0, 0}), param("b", {0}, {1}, kF32), param("c", {0})};
  set_grad(params[0], ga);
  set_grad(params[1], gb);
  return params;
}

}  // namespace

TEST_CASE("clip_grad_norm: 2-norm by hand, scales when above max_norm") {
  std::vector<NamedParameter> params = three_params({3, 4}, {12});
  // total = sqrt(9 + 16 + 144) = sqrt(169) = 13; scale = 6.5 / (13 + 1e-6) ~ 0.5
  CHECK(clip_grad_norm(params, 6.5) == doctest::Approx(13).epsilon(1e-12));
  const double scale = 6.5 / (13 + 1e-6);
  require_values(params[0].tensor.grad(), {3 * scale, 4 * scale}, 1e-12);
  require_values(params[1].tensor.grad(), {12 * scale}, 1e-6);  // float32
  CHECK_FALSE(params[2].tensor.grad().defined());
}

TEST_CASE("clip_grad_norm: no-op below max_norm, still returns the norm") {
  std::vector<NamedParameter> params = three_params({3, 4}, {12});
  const uint64_t version = params[0].tensor.grad().storage()->version();
  CHECK(clip_grad_norm(params, 20) == doctest::Approx(13).epsilon(1e-12));
  CHECK(params[0].tensor.grad().to_vector<double>() == std::vector<double>{3, 4});
  CHECK(params[1].tensor.grad().to_vector<float>() == std::vector<float>{12});
  CHECK(params[0].tensor.grad().storage()->version() == version);
  // 13 + 1e-6 > 13: max_norm = 13 exactly still scales, by a hair (PyTorch's formula).
  CHECK(clip_grad_norm(params, 13) == doctest::Approx(13).epsilon(1e-12));
  CHECK(params[0].tensor.grad().to_vector<double>()[0] < 3);
  CHECK(clip_grad_norm({param("x", {1})}, 1) == 0);  // no gradients at all
}

TEST_CASE("clip_grad_norm: inf norm and 1-norm") {
  std::vector<NamedParameter> params = three_params({3, -14}, {12});
  // max |g| = 14; scale = 7 / (14 + 1e-6) ~ 0.5
  CHECK(clip_grad_norm(params, 7, kInfNorm) == doctest::Approx(14).epsilon(1e-12));
  const double scale = 7 / (14 + 1e-6);
  require_values(params[0].tensor.grad(), {3 * scale, -14 * scale}, 1e-12);
  require_values(params[1].tensor.grad(), {12 * scale}, 1e-6);
  // 1-norm: 3 + 4 + 12 = 19
  CHECK(clip_grad_norm(three_params({3, -4}, {12}), 100, 1) == doctest::Approx(19).epsilon(1e-12));
}

TEST_CASE("clip_grad_norm: a non-finite norm is returned and nothing is scaled") {
  std::vector<NamedParameter> params = three_params({3, std::nan("")}, {12});
  CHECK(std::isnan(clip_grad_norm(params, 1)));
  CHECK(params[1].tensor.grad().to_vector<float>() == std::vector<float>{12});
  CHECK(std::isnan(clip_grad_norm(params, 1, kInfNorm)));
  params = three_params({3, 4}, {INFINITY});
  CHECK(std::isinf(clip_grad_norm(params, 1)));
  CHECK(params[0].tensor.grad().to_vector<double>() == std::vector<double>{3, 4});
}

TEST_CASE("clip_grad_value: clamps each element, keeps NaN") {
  std::vector<NamedParameter> params = three_params({3, -4}, {0.5});
  clip_grad_value(params, 1);
  CHECK(params[0].tensor.grad().to_vector<double>() == std::vector<double>{1, -1});
  CHECK(params[1].tensor.grad().to_vector<float>() == std::vector<float>{0.5});
  params = three_params({std::nan(""), -0.25}, {2});
  clip_grad_value(params, 0.5);
  CHECK(std::isnan(params[0].tensor.grad().to_vector<double>()[0]));
  CHECK(params[0].tensor.grad().to_vector<double>()[1] == -0.25);
  CHECK(params[1].tensor.grad().to_vector<float>() == std::vector<float>{0.5});
}

TEST_CASE("clip_grad: bad arguments are tg::Errors") {
  std::vector<NamedParameter> params = three_params({3, 4}, {12});
  CHECK_THROWS_WITH_AS(clip_grad_norm(params, -1), "clip_grad_norm: max_norm must be >= 0, got -1", Error);
  CHECK_THROWS_WITH_AS(clip_grad_norm(params, 1, 0), "clip_grad_norm: norm_type must be > 0 or kInfNorm, got 0", Error);
  CHECK_THROWS_WITH_AS(clip_grad_value(params, -0.5), "clip_grad_value: clip must be >= 0, got -0.5", Error);
  CHECK_THROWS_WITH_AS(clip_grad_norm({NamedParameter{"u", Tensor()}}, 1),
                       "clip_grad_norm: parameter 'u' is an undefined tensor", Error);
}

TEST_CASE("clip_grad_norm: large gradients (the threaded loops)") {
  const int64_t n = 70000;  // above kParallelGrain
  NamedParameter p = param("p", std::vector<double>(n, 0));
  std::vector<double> g(n, 0.5);
  set_grad(p, g);
  // sqrt(70000 * 0.25) = sqrt(17500) = 132.2875...
  CHECK(clip_grad_norm({p}, 1000) == doctest::Approx(std::sqrt(17500.0)).epsilon(1e-12));
  g[n - 1] = -3;
  set_grad(p, g);
  CHECK(clip_grad_norm({p}, 1.5, kInfNorm) == 3);
  CHECK(p.tensor.grad().to_vector<double>()[0] == doctest::Approx(0.25).epsilon(1e-6));  // scaled by 1.5 / 3
  g[n / 2] = std::nan("");
  set_grad(p, g);
  CHECK(std::isnan(clip_grad_norm({p}, 1, kInfNorm)));
}

TEST_CASE("clip_grad_norm: many gradients give the same norm, to the bit, on one thread and on two") {
  // 3 x 70000 float elements and a small double gradient: chunks from several gradients in one
  // parallel region; the 2-norm, the 1-norm and a 3-norm (pow per element)
  Generator gen(11);
  std::vector<std::vector<double>> values;
  for (int i = 0; i < 3; ++i) values.push_back(rand({70000}, kF64, kCPU, gen, -1, 1).to_vector<double>());
  auto make = [&] {
    std::vector<NamedParameter> params;
    for (size_t i = 0; i < values.size(); ++i)
      params.push_back(param(fmt::format("w{}", i), std::vector<double>(values[i].size()), {70000}, kF32));
    params.push_back(param("d", {0.5, -2}));
    for (size_t i = 0; i < values.size(); ++i) set_grad(params[i], values[i]);
    set_grad(params.back(), {0.5, -2});
    return params;
  };
  const int threads = omp_get_max_threads();
  for (double norm_type : {2.0, 1.0, 3.0}) {
    CAPTURE(norm_type);
    omp_set_num_threads(1);
    const double one = clip_grad_norm(make(), 1e9, norm_type);
    omp_set_num_threads(2);
    const double two = clip_grad_norm(make(), 1e9, norm_type);
    omp_set_num_threads(threads);
    CHECK(std::memcmp(&one, &two, sizeof(double)) == 0);
    double expected = std::pow(0.5, norm_type) + std::pow(2.0, norm_type);  // in a different order: close, not equal
    for (const auto& v : values)
      for (double x : v) expected += std::pow(std::abs(static_cast<double>(static_cast<float>(x))), norm_type);
    CHECK(one == doctest::Approx(std::pow(expected, 1 / norm_type)).epsilon(1e-12));
  }
}

TEST_CASE("clip_grad: CUDA gradients give the CPU's norm and clipped values") {
  if (!gpu_available_or_skip()) return;
  // 70000 elements: many blocks, each with a partial sum; plus a small float32 one.
  Generator gen(3);
  const std::vector<double> big = rand({70000}, kF64, kCPU, gen, -1, 1).to_vector<double>();
  auto make = [&](Device device) {
    std::vector<NamedParameter> params = {param_on(param("a", big), device),
                                          param_on(param("b", {3, -4}, {2}, kF32), device)};
    set_grad(params[0], big);
    set_grad(params[1], {3, -4});
    return params;
  };
  for (double norm_type : {2.0, 1.0, 3.0, kInfNorm}) {
    CAPTURE(norm_type);
    std::vector<NamedParameter> cpu = make(kCPU), gpu = make(Device::cuda());
    const double total = clip_grad_norm(cpu, 1, norm_type);
    CHECK(clip_grad_norm(gpu, 1, norm_type) == doctest::Approx(total).epsilon(1e-12));
    for (size_t i = 0; i < cpu.size(); ++i) {
      CAPTURE(cpu[i].name);
      require_close(to_device_copy(gpu[i].tensor.grad(), kCPU), cpu[i].tensor.grad(), 1e-12, 1e-6);
    }
  }
  // A NaN reaches the norm (inf norm too) and nothing is scaled.
  std::vector<NamedParameter> gpu = make(Device::cuda());
  std::vector<double> with_nan = big;
  with_nan[12345] = std::nan("");
  set_grad(gpu[0], with_nan);
  CHECK(std::isnan(clip_grad_norm(gpu, 1)));
  CHECK(std::isnan(clip_grad_norm(gpu, 1, kInfNorm)));
  CHECK(gpu[1].tensor.grad().to_vector<float>() == std::vector<float>{3, -4});
  // clip_grad_value on the GPU, a CPU parameter alongside.
  std::vector<NamedParameter> mixed = {param_on(param("g", {3, -4, 0.5, std::nan("")}), Device::cuda()),
                                       param("c", {-2, 0.25})};
  set_grad(mixed[0], {3, -4, 0.5, std::nan("")});
  set_grad(mixed[1], {-2, 0.25});
  clip_grad_value(mixed, 1);
  const std::vector<double> g = to_device_copy(mixed[0].tensor.grad(), kCPU).to_vector<double>();
  CHECK(g[0] == 1);
  CHECK(g[1] == -1);
  CHECK(g[2] == 0.5);
  CHECK(std::isnan(g[3]));
  CHECK(mixed[1].tensor.grad().to_vector<double>() == std::vector<double>{-1, 0.25});
}
