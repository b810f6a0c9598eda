#include "ops/common/elementwise.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/mul/mul.h"

namespace tg {

Tensor binary_output(const Tensor& a, const Tensor& b, const char* op) {
  check_floating(a, op, "a");
  check_floating(b, op, "b");
  check_same_dtype(a, b, op);
  check_same_device(a, b, op);
  return empty(broadcast_shapes(a.shape(), b.shape(), op), a.dtype(), a.device());
}

Tensor unary_output(const Tensor& x, const char* op) {
  check_floating(x, op, "x");
  return empty_like(x);
}

Tensor binary_forward(const Tensor& a, const Tensor& b, const char* op, BinaryKernel cpu,
                      [[maybe_unused]] BinaryKernel cuda) {
  Tensor out = binary_output(a, b, op);
  if (out.is_cuda())
    TG_CUDA_ONLY(cuda(out, a, b));
  else
    cpu(out, a, b);
  return out;
}

Tensor unary_forward(const Tensor& x, const char* op, UnaryKernel cpu, [[maybe_unused]] UnaryKernel cuda) {
  Tensor out = unary_output(x, op);
  if (out.is_cuda())
    TG_CUDA_ONLY(cuda(out, x));
  else
    cpu(out, x);
  return out;
}

Tensor unary_op(const Tensor& x, const char* op, UnarySaves saves, UnaryDerivative derivative, UnaryKernels cpu,
                [[maybe_unused]] UnaryKernels cuda) {
  Tensor out = unary_forward(x, op, cpu.forward, cuda.forward);
  if (Recorder rec(op, {x}, {out}); rec) {
    const char* saved = saves == UnarySaves::x ? "x" : "out";
    rec.save(saved, saves == UnarySaves::x ? x : out);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {mul(f.tangent(0), derivative(saves == UnarySaves::x ? f.input(0) : f.output()))};
    });
    rec.backward(
        [=](const BackwardContext& ctx) -> TensorList { return {mul(ctx.grad(), derivative(ctx.saved(saved)))}; },
        [=](const BackwardContext& ctx) -> TensorList {
          Tensor dinp = empty_like(ctx.grad());
          if (dinp.is_cuda())
            TG_CUDA_ONLY(cuda.backward(dinp, ctx.grad(), ctx.saved(saved)));
          else
            cpu.backward(dinp, ctx.grad(), ctx.saved(saved));
          return {dinp};
        });
  }
  return out;
}

Tensor scalar_like(const Tensor& x, double value) {
  check_defined(x, "scalar", "x");
  return full({}, value, x.dtype(), x.device());
}

}  // namespace tg
