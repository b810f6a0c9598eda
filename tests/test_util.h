#pragma once
// Helpers shared by the test files.
#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "tapegrad.h"

namespace tg::test {

// Runs gradcheck and requires that it passes and that `op` was on the checked tape.
void require_gradcheck(const std::string& op, const GradcheckFn& fn, const std::vector<Tensor>& inputs,
                       const GradcheckOptions& options = {});

// Runs fn on float32 copies of the floating inputs and on float64 copies, backward from the
// same random grad_output, and requires the outputs and every input's gradient to be close.
void require_f32_matches_f64(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double atol = 1e-5,
                             double rtol = 1e-4);

// f64 tensor of `shape` with values drawn from a fixed seed, requiring grad.
Tensor rand64(const Shape& shape, uint64_t seed, double low = -1, double high = 1);
// A non-contiguous f64 tensor of `shape` (a transposed view of a contiguous one), requiring grad,
// with values uniform in [low, high).
Tensor noncontig64(const Shape& shape, uint64_t seed, double low = -1, double high = 1);

// Elementwise closeness, with the worst element in the failure message. NaN matches only NaN,
// and an infinity only the same infinity.
void require_close(const Tensor& actual, const Tensor& expected, double atol = 1e-6, double rtol = 1e-5);
void require_values(const Tensor& actual, const std::vector<double>& expected, double atol = 1e-6);

// A row-wise float32 op (fn on a (rows, n) tensor) gives each row the same bits as when that row
// is alone: runs fn forward and backward (gradient g) on x, then on each row of x alone, and
// checks every output and input-gradient element bit for bit. x and g hold rows * n values.
void require_rows_match_alone(const std::function<Tensor(const Tensor&)>& fn, const std::vector<double>& x,
                              const std::vector<double>& g, int64_t rows, int64_t n);

// A copy of t on `device` in `dtype` with t's shape, strides and offset (a non-contiguous t
// stays non-contiguous, on the GPU too), requiring grad where t does (a fresh leaf).
Tensor copy_keeping_strides(const Tensor& t, DType dtype, Device device);
// copy_keeping_strides on cuda:0 in t's dtype: e.g. a GPU input for require_gradcheck.
Tensor cuda_copy(const Tensor& t);

// GPU parity, with the CPU as the reference: runs fn on CPU and on CUDA copies of `inputs`
// (copy_keeping_strides; floating inputs in float64, then again in float32), backward from
// the same random gradient on both, and requires the GPU output and the gradient of every
// input that requires grad to be close to the CPU ones (float64: atol 1e-10, rtol 1e-10;
// float32: atol32, rtol32); a gradient must be undefined on both devices or on neither. A failure names the dtype, the inputs, what differed and the
// worst element. GPU only: call it after gpu_available_or_skip().
void require_cuda_matches_cpu(const GradcheckFn& fn, const std::vector<Tensor>& inputs, double atol32 = 1e-5,
                              double rtol32 = 1e-5);

// GPU cases: true when a GPU is present; otherwise counts the skip and returns false. A case that
// calls it must say GPU or CUDA in its name (any case): the gpu-emulator preset runs only the cases
// so named (CMakePresets.json), and a case named otherwise fails here, in every build.
bool gpu_available_or_skip();
// The name of the test case now running (tests/main.cpp's listener sets it).
void set_running_case(const std::string& name);
int skipped_gpu_cases();
// How many cases found a GPU (the CUDA emulator's included) and ran.
int gpu_cases_run();

}  // namespace tg::test
