#include "ops/matmul/matmul.h"

#include "core/cuda/cuda_only.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/add/add.h"
#include "ops/common/op_doc.h"
#include "ops/reshape/reshape.h"
#include "ops/sum/sum.h"
#include "ops/transpose/transpose.h"
#include "ops/unsqueeze/unsqueeze.h"

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

// How the backward views its operands: as tapegrad ops in the reference rule, so that a
// backward creating a graph records them; as bare views (no tape, a unit stride for the
// inserted dim) in the fast path, so that the GEMM kernels see what they always saw.
struct OperandViews {
  Tensor (*unsqueeze)(const Tensor& x, int64_t dim);
  Tensor (*transposed)(const Tensor& x);  // (..., R, C) -> (..., C, R)
  bool fast_rule;
};
constexpr OperandViews kRecordedViews{[](const Tensor& x, int64_t dim) { return unsqueeze(x, dim); },
                                      [](const Tensor& x) { return transpose(x, -2, -1); }, false};
constexpr OperandViews kBareViews{unsqueeze_view, transposed_view, true};

// Whether the fast rule takes da and db as one team of threads (paired_backward): on the CPU,
// both wanted, a (..., M, K) not broadcast, b a (K, N) matrix shared by every batch element (a
// weight), grad contiguous.
bool pairs(const BackwardContext& ctx, bool a_1d, bool b_1d) {
  const Tensor& grad = ctx.grad();
  return !grad.is_cuda() && !a_1d && !b_1d && ctx.needs_grad(0) && ctx.needs_grad(1) && grad.is_contiguous() &&
         ctx.input_shape(1).size() == 2 && ctx.input_shape(0).size() == grad.shape().size();
}

// da (..., M, K) = grad @ b^T and db (K, N) = a^T @ grad with the batch folded into the rows, in
// one parallel region (matmul_group_cpu), da added into a's gradient gathered so far where
// backward offers it: the bits of the two products computed apart.
TensorList paired_backward(const BackwardContext& ctx) {
  const Tensor &grad = ctx.grad(), &a = ctx.saved("a"), &b = ctx.saved("b");  // grad (..., M, N)
  const int64_t K = b.size(0), N = b.size(1);
  Tensor da = ctx.add_into_gathered(0);
  const bool add_da = da.defined();
  if (!add_da) da = empty(ctx.input_shape(0), grad.dtype(), grad.device());
  const Tensor db = empty({K, N}, grad.dtype(), grad.device());
  const Tensor grad2d = flatten_rows(grad);
  const MatmulProduct products[] = {{db, transposed_view(flatten_rows(a)), grad2d, {}, false},
                                    {flatten_rows(da), grad2d, transposed_view(b), {}, add_da}};
  matmul_group_cpu(products);
  return {da, db};
}

// da and db from grad and the saved operands (see the derivation in matmul.h). The fast rule adds
// da into a's gradient gathered so far, where backward offers it and a was not broadcast, on the CPU.
TensorList matmul_backward(const BackwardContext& ctx, bool a_1d, bool b_1d, const OperandViews& view) {
  if (view.fast_rule && pairs(ctx, a_1d, b_1d)) return paired_backward(ctx);
  // grad (batch..., M, N) with the vector cases' 1s put back
  Tensor grad = ctx.grad();
  if (b_1d) grad = view.unsqueeze(grad, grad.dim());
  if (a_1d) grad = view.unsqueeze(grad, grad.dim() - 1);
  Tensor da, db;
  if (ctx.needs_grad(0)) {
    // da (..., M, K) = grad (..., M, N) @ b^T (..., N, K), summed over a's broadcast dims
    const Tensor& b = ctx.saved("b");
    const Tensor bm = b_1d ? view.unsqueeze(b, 1) : b;
    const Shape am_shape = a_1d ? Shape{1, bm.size(-2)} : ctx.input_shape(0);
    Shape product_shape = grad.shape();  // (batch..., M, K)
    product_shape.back() = bm.size(-2);
    if (view.fast_rule && !grad.is_cuda() && !a_1d && product_shape == am_shape) {  // a not broadcast: no sum
      da = ctx.add_into_gathered(0);
      if (da.defined()) matmul_add_cpu(da, grad, view.transposed(bm));
    }
    if (!da.defined()) da = reshape(sum_to(matmul(grad, view.transposed(bm)), am_shape), ctx.input_shape(0));
  }
  if (ctx.needs_grad(1)) {
    // db (..., K, N) = a^T (..., K, M) @ grad (..., M, N), summed over b's broadcast dims
    const Tensor& a = ctx.saved("a");
    Tensor am = a_1d ? view.unsqueeze(a, 0) : a;
    const int64_t K = am.size(-1);
    const Shape bm_shape = b_1d ? Shape{K, 1} : ctx.input_shape(1);
    if (bm_shape.size() == 2 && am.dim() > 2) {
      // b was shared by every batch element (a Linear weight): fold the batch into the
      // rows, db (K,N) = a^T (K, batch*M) @ grad (batch*M, N), no per-batch partials.
      am = flatten_rows(am);
      grad = flatten_rows(grad);
    }
    db = reshape(sum_to(matmul(view.transposed(am), grad), bm_shape), ctx.input_shape(1));
  }
  return {da, db};
}

}  // namespace

TG_OP_DOC(matmul) {
  return {.summary = "matrix product with broadcast batch dims (torch.matmul)",
          .forward_text = "out = a @ b, out[..., i, j] = sum_k a[..., i, k] b[..., k, j] (batch dims "
                          "broadcast)",
          .forward_tex = R"(\mathrm{out}_{ij} = \sum_k a_{ik}\, b_{kj})",
          .backward = {{"a",
                        "dL/da = sum_to(dL/dout @ b^T, a.shape)",
                        R"(\dLd{a} = \operatorname{sum\_to}(\dLd{\mathrm{out}}\, b^\top))"},
                       {"b",
                        "dL/db = sum_to(a^T @ dL/dout, b.shape)",
                        R"(\dLd{b} = \operatorname{sum\_to}(a^\top \dLd{\mathrm{out}}))"}}};
}

Tensor transposed_view(const Tensor& x) {
  Shape shape = x.shape(), strides = x.strides();
  std::swap(shape[x.dim() - 2], shape[x.dim() - 1]);
  std::swap(strides[x.dim() - 2], strides[x.dim() - 1]);
  return make_view(x, shape, strides, x.offset());
}

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
    rec.forward([](const ForwardContext& f) -> TensorList {  // ta @ b + a @ tb
      Tensor tangent = f.has_tangent(0) ? matmul(f.tangent(0), f.input(1)) : Tensor();
      if (f.has_tangent(1)) {
        const Tensor tb_term = matmul(f.input(0), f.tangent(1));
        tangent = tangent.defined() ? add(tangent, tb_term) : tb_term;
      }
      return {tangent};
    });
    rec.backward(
        [a_1d = a.dim() == 1, b_1d = b.dim() == 1](const BackwardContext& ctx) -> TensorList {
          return matmul_backward(ctx, a_1d, b_1d, kRecordedViews);
        },
        [a_1d = a.dim() == 1, b_1d = b.dim() == 1](const BackwardContext& ctx) -> TensorList {
          return matmul_backward(ctx, a_1d, b_1d, kBareViews);
        });
  }
  return out;
}

}  // namespace tg
