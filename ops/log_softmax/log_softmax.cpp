#include "ops/log_softmax/log_softmax.h"

#include "core/copy.h"
#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/rows.h"

namespace tg {

Tensor log_softmax(const Tensor& x, int64_t dim) {
  check_floating(x, "log_softmax", "x");
  const DimRows rows = dim_rows(x.shape(), dim, "log_softmax");
  Tensor inp = x.is_contiguous() ? x : contiguous_copy(x);
  Tensor out = empty(x.shape(), x.dtype(), x.device());
  if (out.is_cuda())
    TG_CUDA_ONLY(log_softmax_forward_cuda(out, inp, rows.outer, rows.dim_size, rows.inner));
  else
    log_softmax_forward_cpu(out, inp, rows.outer, rows.dim_size, rows.inner);
  if (Recorder rec("log_softmax", {x}, {out}); rec) {
    rec.attr("dim", rows.dim).save("out", out);
    rec.backward([rows](const BackwardContext& ctx) -> TensorList {
      const Tensor& out = ctx.saved("out");
      Tensor dout = ctx.grad().is_contiguous() ? ctx.grad() : contiguous_copy(ctx.grad());
      Tensor dinp = empty(out.shape(), out.dtype(), out.device());
      if (out.is_cuda())
        TG_CUDA_ONLY(log_softmax_backward_cuda(dinp, out, dout, rows.outer, rows.dim_size, rows.inner));
      else
        log_softmax_backward_cpu(dinp, out, dout, rows.outer, rows.dim_size, rows.inner);
      return {dinp};
    });
  }
  return out;
}

}  // namespace tg
