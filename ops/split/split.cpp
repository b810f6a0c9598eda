#include "ops/split/split.h"

#include <algorithm>
#include <numeric>

#include "core/tape.h"
#include "ops/cat/cat.h"
#include "ops/common/op_doc.h"
#include "ops/slice/slice.h"

namespace tg {

namespace {

// The dim, wrapped; a 0-d x has none to cut.
int64_t split_dim(const Tensor& x, int64_t dim, const char* op) {
  check_defined(x, op, "x");
  if (x.dim() == 0) throw Error(op, "x is a 0-d tensor (shape ()); there is no dim to split");
  return wrap_dim(dim, x.dim(), op, x.shape());
}

// n cut into pieces of `size`, the last one smaller; one (empty) piece when n is 0.
std::vector<int64_t> even_sizes(int64_t n, int64_t size) {
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return sizes;
}

// The views (sizes already checked) and their one tape entry.
std::vector<Tensor> split_views(const Tensor& x, const std::vector<int64_t>& sizes, int64_t d, int64_t dim) {
  std::vector<Tensor> pieces;
  int64_t at = 0;
  for (int64_t size : sizes) {
    pieces.push_back(slice_view(x, d, at, at + size));
    at += size;
  }
  if (Recorder rec("split", {x}, pieces); rec) {
    rec.attr("sizes", fmt::format("[{}]", fmt::join(sizes, ","))).attr("dim", dim);
    rec.forward([&](const ForwardContext& f) -> TensorList { return split_views(f.tangent(0), sizes, d, dim); });
    rec.backward([d](const BackwardContext& ctx) -> TensorList {
      TensorList dpieces;
      for (size_t i = 0; i < ctx.entry().outputs.size(); ++i) dpieces.push_back(ctx.grad(static_cast<int>(i)));
      return {cat(dpieces, d)};
    });
  }
  return pieces;
}

}  // namespace

TG_OP_DOC(split) {
  return {.summary = "x cut along one dim into consecutive views",
          .forward_text = "piece_i = x[..., o_i : o_i + n_i, ...] along dim, o_i = n_0 + ... + n_(i-1)",
          .forward_tex = R"(\mathrm{piece}_i = x[\ldots, o_i : o_i + n_i, \ldots])",
          .backward = {{"x",
                        "dL/dx = cat(dL/dpiece_0, dL/dpiece_1, ..., dim) (zeros for a piece that got no gradient)",
                        R"(\dLd{x} = \left[\, \dLd{\mathrm{piece}_0} \;\middle|\; )"
                        R"(\dLd{\mathrm{piece}_1} \;\middle|\; \cdots \,\right]_{\text{dim}})"}}};
}

std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim) {
  const int64_t d = split_dim(x, dim, "split");
  if (split_size < 1)
    throw Error("split", fmt::format("split_size must be >= 1, got {} (x {}, dim {})", split_size,
                                     shape_str(x.shape()), dim));
  return split_views(x, even_sizes(x.size(d), split_size), d, dim);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t dim) {
  const int64_t d = split_dim(x, dim, "split");
  const bool negative = std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; });
  if (sizes.empty() || negative || std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != x.size(d))
    throw Error("split", fmt::format("sizes [{}] must be >= 0 and add up to dim {} of size {} of x {}",
                                     fmt::join(sizes, ","), dim, x.size(d), shape_str(x.shape())));
  return split_views(x, sizes, d, dim);
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim) {
  const int64_t d = split_dim(x, dim, "chunk");
  if (chunks < 1)
    throw Error("chunk", fmt::format("chunks must be >= 1, got {} (x {}, dim {})", chunks, shape_str(x.shape()), dim));
  const int64_t n = x.size(d);
  return split_views(x, even_sizes(n, std::max<int64_t>(1, (n + chunks - 1) / chunks)), d, dim);
}

}  // namespace tg
