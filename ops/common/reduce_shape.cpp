#include "ops/common/reduce_shape.h"

#include <algorithm>

#include <fmt/format.h>

namespace tg {

ReduceShape reduce_shape(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim, const char* op) {
  const int64_t rank = x.dim();
  std::vector<bool> reduced(std::max<int64_t>(rank, 1), false);
  for (int64_t d : dims) {
    int64_t k = wrap_dim(d, rank, op, x.shape());
    if (reduced[k])
      throw Error(op, fmt::format("dim {} appears twice in dims [{}] for x of shape {}", d, fmt::join(dims, ","),
                                  shape_str(x.shape())));
    reduced[k] = true;
  }
  ReduceShape r;
  r.keep = x.shape();
  for (int64_t k = 0; k < rank; ++k) {
    if (!reduced[k]) {
      r.out.push_back(x.size(k));
      continue;
    }
    r.count *= x.size(k);
    r.keep[k] = 1;
    if (keepdim) r.out.push_back(1);
  }
  return r;
}

ReducedDims reduced_dims(const Tensor& x, const Shape& keep) {
  ReducedDims r;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (keep[d] == 1 && x.size(d) != 1) r.shape.push_back(x.size(d)), r.strides.push_back(x.strides()[d]);
  return r;
}

std::vector<int64_t> all_dims(const Tensor& x) {
  std::vector<int64_t> dims(x.dim());
  for (int64_t d = 0; d < x.dim(); ++d) dims[d] = d;
  return dims;
}

}  // namespace tg
