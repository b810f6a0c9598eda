#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/masked_fill/masked_fill.h"

namespace tg {

void masked_fill_forward_cpu(const Tensor& out, const Tensor& x, const Tensor& mask, double value) {
  // out, x (shape); mask (shape or broadcastable to it)
  const Shape mask_strides = broadcast_strides(mask.shape(), mask.strides(), out.shape());
  dispatch_floating(out.dtype(), "masked_fill", [&](auto zero) {
    using T = decltype(zero);
    const T fill = static_cast<T>(value);
    T* o = out.data<T>();
    const T* in = x.data<T>();
    const bool* m = mask.data<bool>();
    strided_for_each<3>(out.shape(), {&out.strides(), &x.strides(), &mask_strides},
                        [&](const auto& off) { o[off[0]] = m[off[2]] ? fill : in[off[1]]; });
  });
}

}  // namespace tg
