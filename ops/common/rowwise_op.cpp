#include "ops/common/rowwise_op.h"

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/contiguous_input.h"
#include "ops/common/dim_rows.h"

namespace tg {

Tensor rowwise_op(const char* op, const Tensor& x, int64_t dim, RowRules rules, RowKernels cpu,
                  [[maybe_unused]] RowKernels cuda) {
  check_floating(x, op, "x");
  const DimRows rows = dim_rows(x.shape(), dim, op);
  Tensor inp = contiguous_or_copy(x);
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  if (out.is_cuda())
    TG_CUDA_ONLY(cuda.forward(out, inp, rows.outer, rows.dim_size, rows.inner));
  else
    cpu.forward(out, inp, rows.outer, rows.dim_size, rows.inner);
  if (Recorder rec(op, {x}, {out}); rec) {
    rec.attr("dim", rows.dim).save("out", out);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      return {rules.forward(f.output(), f.tangent(0), rows.dim)};
    });
    auto reference = [backward = rules.backward, dim = rows.dim](const BackwardContext& ctx) -> TensorList {
      return {backward(ctx.saved("out"), ctx.grad(), dim)};
    };
    rec.backward(reference, [=](const BackwardContext& ctx) -> TensorList {  // captures rows and the kernels
      const Tensor& out = ctx.saved("out");
      Tensor dout = contiguous_or_copy(ctx.grad());
      Tensor dinp = empty(out.shape(), out.dtype(), out.device());
      if (out.is_cuda())
        TG_CUDA_ONLY(cuda.backward(dinp, out, dout, rows.outer, rows.dim_size, rows.inner));
      else
        cpu.backward(dinp, out, dout, rows.outer, rows.dim_size, rows.inner);
      return {dinp};
    });
  }
  return out;
}

}  // namespace tg
