#include "test_util.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tg::test {

namespace {
int skipped = 0, ran_on_gpu = 0;
std::string running_case;

bool names_the_gpu(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("gpu") != std::string::npos || name.find("cuda") != std::string::npos;
}
}  // namespace

void require_gradcheck(const std::string& op, const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                       const GradcheckOptions& options) {
  GradcheckResult r = gradcheck(fn, inputs, options);
  INFO(r.report);
  REQUIRE(r.ok);
  INFO("ops on the tape: ", fmt::format("{}", fmt::join(r.ops, ", ")));
  REQUIRE(std::find(r.ops.begin(), r.ops.end(), op) != r.ops.end());
}

void require_f32_matches_f64(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double atol, double rtol) {
  auto run = [&](DType dtype) {
    std::vector<Tensor> xs;
    for (const Tensor& in : inputs) {
      Tensor x = in.defined() && is_floating(in.dtype()) ? to_dtype_copy(in, dtype) : in;
      if (x.defined() && in.requires_grad()) x.requires_grad_();
      xs.push_back(x);
    }
    Tensor y = fn(xs);
    Generator gen(4321);
    y.backward(to_dtype_copy(randn(y.shape(), kF64, y.device(), gen), y.dtype()));
    std::vector<Tensor> results{y};
    for (const Tensor& x : xs) results.push_back(x.defined() && x.requires_grad() ? x.grad() : Tensor());
    return results;
  };
  std::vector<Tensor> r32 = run(kF32), r64 = run(kF64);
  for (size_t i = 0; i < r32.size(); ++i) {
    const std::string what = i == 0 ? std::string("output") : fmt::format("gradient of input {}", i - 1);
    INFO(what);
    REQUIRE(r32[i].defined() == r64[i].defined());
    if (r32[i].defined()) require_close(r32[i], r64[i], atol, rtol);
  }
}

Tensor rand64(const Shape& shape, uint64_t seed, double low, double high) {
  Generator gen(seed);
  Tensor t = rand(shape, kF64, kCPU, gen, low, high);
  t.requires_grad_();
  return t;
}

Tensor noncontig64(const Shape& shape, uint64_t seed, double low, double high) {
  // Allocate the last two dims swapped, then view them back: same shape, strides swapped.
  Shape swapped = shape;
  REQUIRE(shape.size() >= 2);
  std::swap(swapped[shape.size() - 1], swapped[shape.size() - 2]);
  Generator gen(seed);
  Tensor base = rand(swapped, kF64, kCPU, gen, low, high);
  Shape strides = base.strides();
  std::swap(strides[shape.size() - 1], strides[shape.size() - 2]);
  Tensor t = make_view(base, shape, strides, 0);
  t.requires_grad_();
  REQUIRE_FALSE(t.is_contiguous());
  return t;
}

void require_close(const Tensor& actual, const Tensor& expected, double atol, double rtol) {
  REQUIRE(actual.shape() == expected.shape());
  std::vector<double> a = to_dtype_copy(actual, kF64).to_vector<double>();
  std::vector<double> e = to_dtype_copy(expected, kF64).to_vector<double>();
  size_t worst = 0;
  double worst_excess = -1;
  for (size_t i = 0; i < a.size(); ++i) {
    double excess = std::abs(a[i] - e[i]) - (atol + rtol * std::abs(e[i]));
    // NaN and +-Inf must match exactly (Inf - Inf would be NaN, which compares as no excess).
    if (!std::isfinite(a[i]) || !std::isfinite(e[i]))
      excess = a[i] == e[i] || (std::isnan(a[i]) && std::isnan(e[i])) ? 0 : INFINITY;
    if (excess > worst_excess) worst_excess = excess, worst = i;
  }
  INFO(fmt::format("worst element {} of {}: actual {:.9g} expected {:.9g}", worst, shape_str(actual.shape()),
                   a.empty() ? 0 : a[worst], e.empty() ? 0 : e[worst]));
  REQUIRE(worst_excess <= 0);
}

void require_values(const Tensor& actual, const std::vector<double>& expected, double atol) {
  REQUIRE(actual.numel() == static_cast<int64_t>(expected.size()));
  Tensor want = actual.dim() == 0 ? scalar(expected[0], kF64) : tensor(expected, actual.shape(), kF64);
  require_close(actual, want, atol, 0);
}

void require_rows_match_alone(const std::function<Tensor(const Tensor&)>& fn, const std::vector<double>& x,
                              const std::vector<double>& g, int64_t rows, int64_t n) {
  // The output and the input's gradient of fn on `count` rows of x and g from `first`, as bit patterns.
  auto run = [&](int64_t first, int64_t count) {
    const auto part = [&](const std::vector<double>& v) {
      return tensor(std::vector<double>(v.begin() + first * n, v.begin() + (first + count) * n), {count, n}, kF32);
    };
    Tensor input = part(x);
    input.requires_grad_();
    Tensor out = fn(input);
    out.backward(part(g));
    std::vector<uint32_t> bits;
    for (const Tensor& t : {out, input.grad()})
      for (float v : t.to_vector<float>()) bits.push_back(std::bit_cast<uint32_t>(v));
    return bits;
  };
  const std::vector<uint32_t> together = run(0, rows);  // outputs of all rows, then gradients
  for (int64_t r = 0; r < rows; ++r) {
    CAPTURE(r);
    const std::vector<uint32_t> alone = run(r, 1);
    for (int64_t j = 0; j < n; ++j) {
      CHECK(together[r * n + j] == alone[j]);                // output
      CHECK(together[(rows + r) * n + j] == alone[n + j]);  // input gradient
    }
  }
}

Tensor copy_keeping_strides(const Tensor& t, DType dtype, Device device) {
  int64_t span = t.numel() == 0 ? 0 : t.offset() + 1;  // storage elements the view reaches
  for (int64_t d = 0; d < t.dim() && span > 0; ++d) span += (t.size(d) - 1) * t.strides()[d];
  Tensor view = make_view(empty({span}, dtype, device), t.shape(), t.strides(), t.offset());
  copy_(view, t);
  if (t.requires_grad()) view.requires_grad_();
  return view;
}

Tensor cuda_copy(const Tensor& t) { return copy_keeping_strides(t, t.dtype(), Device::cuda()); }

void require_cuda_matches_cpu(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double atol32, double rtol32) {
  std::string described;
  for (const Tensor& t : inputs) described += (described.empty() ? "" : ", ") + t.describe();  // "undefined" too
  INFO("inputs: ", described);
  for (DType dtype : {kF64, kF32}) {
    INFO("dtype: ", std::string(dtype_name(dtype)));
    const double atol = dtype == kF64 ? 1e-10 : atol32, rtol = dtype == kF64 ? 1e-10 : rtol32;
    std::vector<Tensor> on_cpu, on_gpu;
    for (const Tensor& t : inputs) {
      const DType d = t.defined() && !is_floating(t.dtype()) ? t.dtype() : dtype;
      on_cpu.push_back(t.defined() ? copy_keeping_strides(t, d, kCPU) : t);
      on_gpu.push_back(t.defined() ? copy_keeping_strides(t, d, Device::cuda()) : t);
    }
    Tensor y_cpu = fn(on_cpu), y_gpu = fn(on_gpu);
    REQUIRE(y_gpu.is_cuda());
    {
      INFO("the output");
      require_close(to_device_copy(y_gpu, kCPU), y_cpu, atol, rtol);
    }
    if (!y_cpu.requires_grad()) continue;
    Generator gen(2024);
    Tensor seed = to_dtype_copy(rand(y_cpu.shape(), kF64, kCPU, gen, -1, 1), y_cpu.dtype());
    y_cpu.backward(seed);
    y_gpu.backward(to_device_copy(seed, Device::cuda()));
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
      INFO("the gradient of input ", i);
      REQUIRE(on_gpu[i].grad().defined() == on_cpu[i].grad().defined());  // undefined: it did not reach y
      if (!on_cpu[i].grad().defined()) continue;
      CHECK(on_gpu[i].grad().is_cuda());
      require_close(to_device_copy(on_gpu[i].grad(), kCPU), on_cpu[i].grad(), atol, rtol);
    }
  }
}

void set_running_case(const std::string& name) { running_case = name; }

bool gpu_available_or_skip() {
  if (!names_the_gpu(running_case))
    throw std::logic_error("test case \"" + running_case + "\" uses the GPU, so its name must say GPU or CUDA: "
                           "the gpu-emulator preset runs only the cases so named");
  if (cuda_device_count() > 0) {
    ++ran_on_gpu;
    return true;
  }
  ++skipped;
  return false;
}
int skipped_gpu_cases() { return skipped; }
int gpu_cases_run() { return ran_on_gpu; }

}  // namespace tg::test
