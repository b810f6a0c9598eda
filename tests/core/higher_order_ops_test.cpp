// Every op record (ops/<op>/<op>_case.cpp) to second order and in forward mode, in float64
// against finite differences, and every fast path against its reference rule. One subcase per
// op: `tapegrad_tests -tc='*higher order*' -sc=exp` checks one.
#include <doctest/doctest.h>

#include "core/grad.h"
#include "core/grad_mode.h"
#include "ops/op_registry.h"
#include "ops/ops.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {

void require_check(const OpCase& c, const GradcheckResult& r) {
  INFO("op ", c.op, ": ", r.report);
  CHECK(r.checked > 0);
  CHECK(r.ok);
}

// A copy of a case's inputs in `dtype` on `device`, non-contiguous where `strided` and the input
// has two dims to swap; inputs that are not floating (indices, masks) only move.
std::vector<Tensor> case_inputs_as(const OpCase& c, DType dtype, Device device, bool strided) {
  std::vector<Tensor> inputs;
  for (const Tensor& in : c.inputs()) {
    if (!in.defined() || !is_floating(in.dtype())) {
      inputs.push_back(in.defined() ? copy_keeping_strides(in, in.dtype(), device) : in);
      continue;
    }
    Tensor layout = in;
    if (strided && in.dim() >= 2) {
      NoGradGuard no_grad;
      layout = transpose(contiguous(transpose(in.detach(), -1, -2)), -1, -2);  // values of in, strides swapped
      if (in.requires_grad()) layout = layout.detach().requires_grad_();
    }
    inputs.push_back(copy_keeping_strides(layout, dtype, device));
  }
  return inputs;
}

// The gradients of fn's output projected on a fixed random tensor, by the fast paths (no graph)
// or by the reference rules (creating a graph).
TensorList projected_gradients(const OpCase& c, const std::vector<Tensor>& inputs, bool create_graph) {
  Tensor y = c.fn(inputs);
  Generator gen(7);
  Tensor v = to_dtype_copy(randn(y.shape(), kF64, y.device(), gen), y.dtype());
  TensorList differentiable;
  for (const Tensor& in : inputs)
    if (in.defined() && in.requires_grad()) differentiable.push_back(in);
  return grad({y}, differentiable, {v}, {.create_graph = create_graph, .allow_unused = true});
}

void require_fast_matches_reference(const OpCase& c, DType dtype, Device device, bool strided) {
  CAPTURE(dtype_name(dtype));
  CAPTURE(device.str());
  CAPTURE(strided);
  const std::vector<Tensor> inputs = case_inputs_as(c, dtype, device, strided);
  const TensorList fast = projected_gradients(c, inputs, false), reference = projected_gradients(c, inputs, true);
  REQUIRE(fast.size() == reference.size());
  for (size_t i = 0; i < fast.size(); ++i) {
    CAPTURE(i);
    REQUIRE(fast[i].defined() == reference[i].defined());
    if (!fast[i].defined()) continue;
    if (dtype == kF64)
      require_close(fast[i], reference[i].detach(), 1e-10, 1e-9);
    else
      require_close(fast[i], reference[i].detach(), 1e-5, 1e-4);
  }
}

}  // namespace

TEST_CASE("higher order: every op passes gradgradcheck in float64") {
  for (const OpCase& c : op_cases())
    SUBCASE(c.op.c_str()) { require_check(c, gradgradcheck(c.fn, c.inputs(), c.options)); }
}

TEST_CASE("higher order: every op's forward-mode rule matches finite differences in float64") {
  for (const OpCase& c : op_cases())
    SUBCASE(c.op.c_str()) { require_check(c, check_forward_ad(c.fn, c.inputs(), c.options)); }
}

TEST_CASE("higher order: forward over reverse (the jvp of every op's gradient) in float64") {
  for (const OpCase& c : op_cases())
    SUBCASE(c.op.c_str()) { require_check(c, check_fwd_over_rev(c.fn, c.inputs(), c.options)); }
}

TEST_CASE("higher order: every fast path matches its reference rule (f32 and f64, strided too, CPU and GPU)") {
  const bool gpu = gpu_available_or_skip();
  for (const OpCase& c : op_cases())
    SUBCASE(c.op.c_str()) {
      for (DType dtype : {kF64, kF32})
        for (bool strided : {false, true}) {
          require_fast_matches_reference(c, dtype, kCPU, strided);
          if (gpu) require_fast_matches_reference(c, dtype, Device::cuda(0), strided);
        }
    }
}
