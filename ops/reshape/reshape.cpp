#include "ops/reshape/reshape.h"

#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/contiguous/contiguous.h"

namespace tg {

namespace {

// Resolves a -1 and checks the element count.
Shape infer_shape(const Tensor& x, Shape shape, const char* op) {
  int64_t known = 1, infer = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      if (infer >= 0) throw Error(op, fmt::format("only one dim can be -1, got {}", shape_str(shape)));
      infer = static_cast<int64_t>(d);
    } else if (shape[d] < 0) {
      throw Error(op, fmt::format("invalid size {} in {}", shape[d], shape_str(shape)));
    } else if (__builtin_mul_overflow(known, shape[d], &known)) {
      throw Error(op, fmt::format("the sizes of {} multiply past int64's limit", shape_str(shape)));
    }
  }
  if (infer >= 0 && known != 0 && x.numel() % known == 0) shape[infer] = x.numel() / known;
  if (numel(shape) != x.numel() || (infer >= 0 && known == 0))
    throw Error(op, fmt::format("shape {} is invalid for input x {} of {} elements", shape_str(shape),
                                shape_str(x.shape()), x.numel()));
  return shape;
}

// A view of the contiguous x as `shape` (already checked), recorded on the tape as `op`.
Tensor contiguous_view(const Tensor& x, const Shape& shape, const char* op) {
  Tensor out = make_view(x, shape, contiguous_strides(shape), x.offset());
  if (Recorder rec(op, {x}, {out}); rec) {
    rec.attr("shape", shape_str(shape));
    rec.forward([&](const ForwardContext& f) -> TensorList { return {reshape(f.tangent(0), shape)}; });
    rec.backward([](const BackwardContext& ctx) -> TensorList { return {reshape(ctx.grad(), ctx.input_shape(0))}; });
  }
  return out;
}

}  // namespace

Tensor view(const Tensor& x, Shape shape) {
  check_defined(x, "view", "x");
  shape = infer_shape(x, std::move(shape), "view");
  if (!x.is_contiguous())
    throw Error("view", fmt::format("x {} with strides {} is not contiguous; use reshape() or "
                                    "contiguous() first", shape_str(x.shape()), shape_str(x.strides())));
  return contiguous_view(x, shape, "view");
}

TG_OP_DOC(reshape) {
  return {.summary = "the same elements in a new shape (row-major)",
          .forward_text = "out = x's elements in row-major order, in a new shape",
          .forward_tex = R"(\mathrm{out} = \operatorname{reshape}(x, \text{shape}))",
          .backward = {{"x",
                        "dL/dx = reshape(dL/dout, x.shape)",
                        R"(\dLd{x} = \operatorname{reshape}(\dLd{\mathrm{out}}, )"
                        R"(\operatorname{shape}(x)))"}}};
}

Tensor reshape(const Tensor& x, Shape shape) {
  check_defined(x, "reshape", "x");
  shape = infer_shape(x, std::move(shape), "reshape");
  return contiguous_view(x.is_contiguous() ? x : contiguous(x), shape, "reshape");
}

Tensor flatten(const Tensor& x) { return reshape(x, {-1}); }

Tensor flatten_rows(const Tensor& x) {
  const Shape& shape = x.shape();
  if (shape.empty()) throw Error("reshape", "flatten_rows needs x of rank >= 1, got a 0-d tensor");
  return reshape(x, {numel(Shape(shape.begin(), shape.end() - 1)), shape.back()});
}

}  // namespace tg
