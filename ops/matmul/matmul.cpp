#include "ops/matmul/matmul.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/reshape/reshape.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

// x with a size-1 dim inserted before `dim` (a view: no copy, not on the tape).
Tensor unsqueeze_view(const Tensor& x, int64_t dim) {
  Shape shape = x.shape(), strides = x.strides();
  shape.insert(shape.begin() + dim, 1);
  strides.insert(strides.begin() + dim, 1);  // never stepped along
  return make_view(x, shape, strides, x.offset());
}

// The operands as matrices: a (K) -> (1,K), b (K) -> (K,1); rank >= 2 unchanged.
Tensor as_left_matrix(const Tensor& a) { return a.dim() == 1 ? unsqueeze_view(a, 0) : a; }
Tensor as_right_matrix(const Tensor& b) { return b.dim() == 1 ? unsqueeze_view(b, 1) : b; }

// x (..., R, C) -> x^T (..., C, R): a view, read column-major by the GEMM kernels.
Tensor transposed_view(const Tensor& x) {
  Shape shape = x.shape(), strides = x.strides();
  std::swap(shape[x.dim() - 2], shape[x.dim() - 1]);
  std::swap(strides[x.dim() - 2], strides[x.dim() - 1]);
  return make_view(x, shape, strides, x.offset());
}

std::string shapes(const Tensor& a, const Tensor& b) {
  return fmt::format("a {} @ b {}", shape_str(a.shape()), shape_str(b.shape()));
}

// out's shape: broadcast batch dims, then M unless a is 1-D, then N unless b is 1-D.
Shape output_shape(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0)
    throw Error("matmul", "both operands need at least 1 dim, got " + shapes(a, b));
  const Tensor am = as_left_matrix(a), bm = as_right_matrix(b);
  if (am.size(-1) != bm.size(-2)) throw Error("matmul", "inner dimensions differ: " + shapes(a, b));
  Shape out;
  try {
    out = broadcast_shapes(Shape(am.shape().begin(), am.shape().end() - 2),
                           Shape(bm.shape().begin(), bm.shape().end() - 2), "matmul");
  } catch (const Error&) {
    throw Error("matmul", "batch dims do not broadcast: " + shapes(a, b));
  }
  if (a.dim() > 1) out.push_back(am.size(-2));
  if (b.dim() > 1) out.push_back(bm.size(-1));
  return out;
}

}  // namespace

Tensor matmul(const Tensor& a, const Tensor& b) {
  check_floating(a, "matmul", "a");
  check_floating(b, "matmul", "b");
  check_same_dtype(a, b, "matmul");
  check_same_device(a, b, "matmul");
  Tensor out = empty(output_shape(a, b), a.dtype(), a.device());
  // The kernels see the promoted shapes: out (batch..., M, N).
  Tensor out_m = out;
  if (b.dim() == 1) out_m = unsqueeze_view(out_m, out_m.dim());
  if (a.dim() == 1) out_m = unsqueeze_view(out_m, out_m.dim() - 1);
  if (out.is_cuda())
    TG_CUDA_ONLY(matmul_forward_cuda(out_m, as_left_matrix(a), as_right_matrix(b)));
  else
    matmul_forward_cpu(out_m, as_left_matrix(a), as_right_matrix(b));

  if (Recorder rec("matmul", {a, b}, {out}); rec) {
    if (b.requires_grad()) rec.save("a", a);  // db needs a, da needs b
    if (a.requires_grad()) rec.save("b", b);
    rec.backward([a_1d = a.dim() == 1, b_1d = b.dim() == 1](const BackwardContext& ctx) -> TensorList {
      // grad (batch..., M, N) with the vector cases' 1s put back
      Tensor grad = ctx.grad();
      if (b_1d) grad = unsqueeze_view(grad, grad.dim());
      if (a_1d) grad = unsqueeze_view(grad, grad.dim() - 1);
      const int64_t N = grad.size(-1);
      Tensor da, db;
      if (ctx.needs_grad(0)) {
        // da (..., M, K) = grad (..., M, N) @ b^T (..., N, K), summed over a's broadcast dims
        const Tensor bm = as_right_matrix(ctx.saved("b"));
        const Shape am_shape = a_1d ? Shape{1, bm.size(-2)} : ctx.input_shape(0);
        da = reshape(sum_to(matmul(grad, transposed_view(bm)), am_shape), ctx.input_shape(0));
      }
      if (ctx.needs_grad(1)) {
        // db (..., K, N) = a^T (..., K, M) @ grad (..., M, N), summed over b's broadcast dims
        Tensor am = as_left_matrix(ctx.saved("a"));
        const int64_t K = am.size(-1);
        const Shape bm_shape = b_1d ? Shape{K, 1} : ctx.input_shape(1);
        if (bm_shape.size() == 2 && am.dim() > 2) {
          // b was shared by every batch element (a Linear weight): fold the batch into the
          // rows, db (K,N) = a^T (K, batch*M) @ grad (batch*M, N), no per-batch partials.
          am = reshape(am, {-1, K});
          grad = reshape(grad, {-1, N});
        }
        db = reshape(sum_to(matmul(transposed_view(am), grad), bm_shape), ctx.input_shape(1));
      }
      return {da, db};
    });
  }
  return out;
}

}  // namespace tg
