#include <cmath>
#include <vector>

#include "core/copy.h"
#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/max/max.h"

namespace tg {

namespace {

// Whether v, met after best in scan order, becomes the new maximum: strictly larger (so the
// first of equal maxima stays), or NaN (NaN propagates, and the first NaN stays).
template <class T> bool replaces(T v, T best) { return !std::isnan(best) && (std::isnan(v) || v > best); }

// x's strides with `dim` set to 0: walking the other dims with them gives the offset of the
// first element of each reduced row (dx's for the backward). A 0-d tensor has no dims.
Shape row_start_strides(const Tensor& t, int64_t dim) {
  Shape strides = t.strides();
  if (t.dim() > 0) strides[dim] = 0;
  return strides;
}

}  // namespace

void max_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& x, int64_t dim) {
  // x (d0..dn-1) any strides; out, indices (x.shape with dim as 1) contiguous; one row per output
  const int64_t n = x.dim() == 0 ? 1 : x.size(dim), step = x.dim() == 0 ? 0 : x.strides()[dim];
  const Shape row_start = row_start_strides(x, dim);
  dispatch_floating(x.dtype(), "max", [&](auto zero) {
    using T = decltype(zero);
    const T* in = x.data<T>();
    T* o = out.data<T>();
    int64_t* idx = indices.data<int64_t>();
    strided_for_each<2>(out.shape(), {&out.strides(), &row_start}, [&](const auto& off) {
      const T* row = in + off[1];
      int64_t best = 0;
      for (int64_t k = 1; k < n; ++k)
        if (replaces(row[k * step], row[best * step])) best = k;
      o[off[0]] = row[best * step];
      idx[off[0]] = best;
    }, n);
  });
}

void max_all_forward_cpu(const Tensor& out, const Tensor& index, const Tensor& x) {
  // x (...) any strides, numel > 0; out (), index ()
  const int64_t n = x.numel();
  dispatch_floating(x.dtype(), "max", [&](auto zero) {
    using T = decltype(zero);
    struct Best {
      T value{};
      int64_t index = -1;  // -1: this chunk was empty
    };
    const T* in = x.data<T>();
    std::vector<Best> partial(omp_get_max_threads());
    // Each thread scans one contiguous chunk of the row-major order ...
#pragma omp parallel if (n > kParallelGrain)
    {
      const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t begin = n * t / threads, end = n * (t + 1) / threads;
      Best best;
      int64_t i = begin;
      strided_range<1>(x.shape(), {&x.strides()}, begin, end, [&](const auto& off) {
        if (best.index < 0 || replaces(in[off[0]], best.value)) best = {in[off[0]], i};
        ++i;
      });
      partial[t] = best;
    }
    // ... and the chunks, combined in that order, keep the first maximum.
    Best best;
    for (const Best& p : partial)
      if (p.index >= 0 && (best.index < 0 || replaces(p.value, best.value))) best = p;
    out.data<T>()[0] = best.value;
    index.data<int64_t>()[0] = best.index;
  });
}

void max_backward_cpu(const Tensor& dx, const Tensor& indices, const Tensor& grad, int64_t dim) {
  // dx (d0..dn-1) contiguous; indices, grad (dx.shape with dim as 1); grad any strides
  fill_(dx, 0);  // dx = 0 ...
  const int64_t step = dx.dim() == 0 ? 0 : dx.strides()[dim];
  const Shape row_start = row_start_strides(dx, dim);
  dispatch_floating(dx.dtype(), "max", [&](auto zero) {
    using T = decltype(zero);
    T* d = dx.data<T>();
    const int64_t* idx = indices.data<int64_t>();
    const T* g = grad.data<T>();
    // ... except at each row's maximum: dx = grad
    strided_for_each<3>(indices.shape(), {&row_start, &indices.strides(), &grad.strides()},
                        [&](const auto& off) { d[off[0] + idx[off[1]] * step] = g[off[2]]; });
  });
}

}  // namespace tg
