#include "ops/slice/slice.h"

#include <algorithm>

#include "core/copy.h"
#include "core/factories.h"
#include "core/tape.h"

namespace tg {

namespace {

// The dim, wrapped; a 0-d x has none to cut.
int64_t sliced_dim(const Tensor& x, int64_t dim, const char* op) {
  check_defined(x, op, "x");
  if (x.dim() == 0) throw Error(op, "x is a 0-d tensor (shape ()); there is no dim to slice");
  return wrap_dim(dim, x.dim(), op, x.shape());
}

}  // namespace

Tensor slice_view(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Shape shape = x.shape(), strides = x.strides();
  shape[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  return make_view(x, shape, strides, x.offset() + start * x.strides()[dim]);
}

Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  const int64_t d = sliced_dim(x, dim, "slice");
  if (step < 1)
    throw Error("slice", fmt::format("step must be >= 1, got {} (slicing x {} along dim {})", step,
                                     shape_str(x.shape()), dim));
  const int64_t n = x.size(d);
  auto wrap = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
  const int64_t lo = wrap(start), hi = std::max(lo, wrap(end));
  Tensor out = slice_view(x, d, lo, hi, step);
  if (Recorder rec("slice", {x}, {out}); rec) {
    rec.attr("dim", dim).attr("start", lo).attr("end", hi).attr("step", step);
    rec.backward([d, lo, hi, step](const BackwardContext& ctx) -> TensorList {
      Tensor dx = zeros(ctx.input_shape(0), ctx.input_dtype(0), ctx.grad().device());
      copy_(slice_view(dx, d, lo, hi, step), ctx.grad());  // dx[lo:hi:step] = grad
      return {dx};
    });
  }
  return out;
}

Tensor narrow(const Tensor& x, int64_t dim, int64_t start, int64_t length) {
  const int64_t d = sliced_dim(x, dim, "narrow");
  const int64_t n = x.size(d), lo = start < 0 ? start + n : start;
  if (lo < 0 || lo > n || length < 0 || lo + length > n)
    throw Error("narrow", fmt::format("start {} and length {} do not fit in dim {} of size {} of x {}", start,
                                      length, dim, n, shape_str(x.shape())));
  return slice(x, d, lo, lo + length);
}

}  // namespace tg
