#pragma once
// Shared by the elementwise op folders: argument checks, output allocation and the choice of
// the device's kernel.
#include "core/tensor.h"

namespace tg {

// Checks a and b (defined, floating, same dtype and device) and returns an uninitialised
// output of their broadcast shape. Errors name `op` and both shapes.
Tensor binary_output(const Tensor& a, const Tensor& b, const char* op);
// Checks x (defined, floating) and returns an uninitialised contiguous output like it.
Tensor unary_output(const Tensor& x, const char* op);
// A 0-d tensor holding `value` in x's dtype and device (the scalar forms: x + 2.0).
Tensor scalar_like(const Tensor& x, double value);

// One device's kernels of an elementwise op (= writes): out = f(a, b), out = f(x), and the
// backward of a unary op whose rule reads one saved tensor (x or out): dinp from dout and it.
using BinaryKernel = void (*)(const Tensor& out, const Tensor& a, const Tensor& b);
using UnaryKernel = void (*)(const Tensor& out, const Tensor& x);
using UnaryBackwardKernel = void (*)(const Tensor& dinp, const Tensor& dout, const Tensor& saved);

// binary_output / unary_output, written by the kernel of the output's device: cpu, or cuda
// (TG_CUDA_KERNEL(...), core/cuda/cuda_only.h) for a tensor on a GPU.
Tensor binary_forward(const Tensor& a, const Tensor& b, const char* op, BinaryKernel cpu, BinaryKernel cuda);
Tensor unary_forward(const Tensor& x, const char* op, UnaryKernel cpu, UnaryKernel cuda);

// A unary op whose backward is one kernel reading the gradient and one saved tensor: exp, log,
// relu, sigmoid, sqrt, tanh. Its formula and backward rule are its <op>_math.h, which both its
// CPU and its CUDA kernels call.
enum class UnarySaves { x, out };  // what the backward kernel reads besides the gradient
struct UnaryKernels {
  UnaryKernel forward;           // out = f(x)
  UnaryBackwardKernel backward;  // dinp = dout * f'(x), from x or out
};
// The op's derivative f'(x), written with tapegrad ops on the saved tensor (x or out): the one
// definition of its rules. Reverse: dx = grad * f'(x); forward: tangent_out = tangent_x * f'(x).
using UnaryDerivative = Tensor (*)(const Tensor& saved);
// unary_forward, then records `op` with the saved tensor, the reference rule from `derivative`
// and a fast backward that runs the backward kernel of the gradient's device.
Tensor unary_op(const Tensor& x, const char* op, UnarySaves saves, UnaryDerivative derivative, UnaryKernels cpu,
                UnaryKernels cuda);

}  // namespace tg
