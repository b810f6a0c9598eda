#include "ops/cat/cat.h"

#include "core/copy.h"
#include "core/factories.h"
#include "core/tape.h"
#include "ops/common/op_doc.h"
#include "ops/slice/slice.h"

namespace tg {

namespace {

// Checks the inputs against the first one and returns the wrapped dim.
int64_t check_cat(const std::vector<Tensor>& tensors, int64_t dim) {
  if (tensors.empty()) throw Error("cat", "expected at least one tensor, got an empty list");
  for (size_t i = 0; i < tensors.size(); ++i) check_defined(tensors[i], "cat", fmt::format("tensors[{}]", i).c_str());
  const Tensor& first = tensors[0];
  if (first.dim() == 0) throw Error("cat", "tensors[0] is a 0-d tensor (shape ()); there is no dim to join along");
  const int64_t d = wrap_dim(dim, first.dim(), "cat", first.shape());
  for (size_t i = 1; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    check_same_dtype(first, t, "cat");
    check_same_device(first, t, "cat");
    bool ok = t.dim() == first.dim();
    for (int64_t k = 0; ok && k < t.dim(); ++k) ok = k == d || t.size(k) == first.size(k);
    if (!ok)
      throw Error("cat", fmt::format("tensors[{}] {} does not match tensors[0] {} in every dim except dim {}", i,
                                     shape_str(t.shape()), shape_str(first.shape()), dim));
  }
  return d;
}

}  // namespace

TG_OP_DOC(cat) {
  return {.summary = "the tensors joined end to end along one dim",
          .forward_text = "out = cat(tensors, dim): tensors[i] fills positions o_i .. o_i + n_i - 1 of "
                          "dim, o_i = n_0 + ... + n_(i-1)",
          .forward_tex = R"(\mathrm{out} = \left[\, t_0 \;\middle|\; t_1 \;\middle|\; \cdots )"
                         R"(\,\right]_{\text{dim}})",
          .backward = {{"tensors[i]",
                        "dL/dtensors[i] = narrow(dL/dout, dim, o_i, n_i)",
                        R"(\dLd{t_i} = \dLd{\mathrm{out}}[\ldots, o_i : o_i + n_i, \ldots])"}}};
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
  const int64_t d = check_cat(tensors, dim);
  Shape shape = tensors[0].shape();
  shape[d] = 0;
  for (const Tensor& t : tensors)
    if (__builtin_add_overflow(shape[d], t.size(d), &shape[d]))
      throw Error("cat", fmt::format("the sizes along dim {} add up past int64's limit", dim));
  Tensor out = empty(shape, tensors[0].dtype(), tensors[0].device());
  int64_t at = 0;
  for (const Tensor& t : tensors) {
    copy_(slice_view(out, d, at, at + t.size(d)), t);  // out[at:at+n_i] = tensors[i]
    at += t.size(d);
  }
  if (Recorder rec("cat", tensors, {out}); rec) {
    rec.attr("dim", dim);
    rec.forward([&](const ForwardContext& f) -> TensorList {
      TensorList tangents;
      for (size_t i = 0; i < tensors.size(); ++i) tangents.push_back(f.tangent_or_zeros(static_cast<int>(i)));
      return {cat(tangents, d)};
    });
    rec.backward([d](const BackwardContext& ctx) -> TensorList {
      TensorList dtensors(ctx.entry().inputs.size());
      int64_t at = 0;
      for (size_t i = 0; i < dtensors.size(); ++i) {
        const int input = static_cast<int>(i);
        const int64_t n = ctx.input_shape(input)[d];
        if (ctx.needs_grad(input)) dtensors[i] = narrow(ctx.grad(), d, at, n);
        at += n;
      }
      return dtensors;
    });
  }
  return out;
}

}  // namespace tg
