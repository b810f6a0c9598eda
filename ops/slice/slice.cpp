#include "ops/slice/slice.h"

#include <algorithm>

#include "core/copy.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/cat/cat.h"
#include "ops/common/op_doc.h"
#include "ops/reshape/reshape.h"
#include "ops/unsqueeze/unsqueeze.h"

namespace tg {

namespace {

// The dim, wrapped; a 0-d x has none to cut.
int64_t sliced_dim(const Tensor& x, int64_t dim, const char* op) {
  check_defined(x, op, "x");
  if (x.dim() == 0) throw Error(op, "x is a 0-d tensor (shape ()); there is no dim to slice");
  return wrap_dim(dim, x.dim(), op, x.shape());
}

}  // namespace

// slice's backward with tapegrad ops (so that it is differentiable): zeros of x's shape, with
// grad at positions lo, lo + step, ... < hi of dim d. Each of grad's rows along d is followed by
// step - 1 rows of zeros, and the whole padded by zeros to x's size:
//   grad (..., m, ...) -> (..., m, step, ...) -> (..., m * step, ...) -> first hi - lo -> (..., n, ...)
Tensor spread_into_zeros(const Tensor& grad, const Shape& x_shape, int64_t d, int64_t lo, int64_t hi, int64_t step) {
  auto zeros_along_d = [&](const Shape& like, int64_t dim, int64_t size) {
    Shape shape = like;
    shape[dim] = size;
    return zeros(shape, grad.dtype(), grad.device());
  };
  Tensor spread = grad;
  if (step > 1) {
    Tensor rows = unsqueeze(grad, d + 1);
    Shape flat = grad.shape();
    flat[d] *= step;
    spread = narrow(reshape(cat({rows, zeros_along_d(rows.shape(), d + 1, step - 1)}, d + 1), flat), d, 0, hi - lo);
  }
  std::vector<Tensor> pieces;
  if (lo > 0) pieces.push_back(zeros_along_d(x_shape, d, lo));
  pieces.push_back(spread);
  if (hi < x_shape[d]) pieces.push_back(zeros_along_d(x_shape, d, x_shape[d] - hi));
  return pieces.size() == 1 ? spread : cat(pieces, d);
}

Tensor slice_view(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step) {
  Shape shape = x.shape(), strides = x.strides();
  shape[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  return make_view(x, shape, strides, x.offset() + start * x.strides()[dim]);
}

TG_OP_DOC(slice) {
  return {.summary = "a view keeping positions start, start+step, ... < end of one dim",
          .forward_text = "out = x[..., start:end:step, ...] along dim",
          .forward_tex = R"(\mathrm{out} = x[\ldots, \text{start} : \text{end} : \text{step}, \ldots])",
          .backward = {{"x",
                        "dL/dx = zeros(x.shape) with dL/dx[..., start:end:step, ...] = dL/dout",
                        R"(\dLd{x} = 0 \text{ except } \dLd{x}[\ldots, \text{start} : \text{end} : )"
                        R"(\text{step}, \ldots] = \dLd{\mathrm{out}})"}}};
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
    rec.forward([&](const ForwardContext& f) -> TensorList { return {slice_view(f.tangent(0), d, lo, hi, step)}; });
    rec.backward(
        [d, lo, hi, step](const BackwardContext& ctx) -> TensorList {
          return {spread_into_zeros(ctx.grad(), ctx.input_shape(0), d, lo, hi, step)};
        },
        [d, lo, hi, step](const BackwardContext& ctx) -> TensorList {
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
