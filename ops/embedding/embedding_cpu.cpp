#include <algorithm>
#include <vector>

#include <omp.h>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/embedding/embedding.h"

namespace tg {

void embedding_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& weight) {
  // out (N, C), indices (N), weight (V, C) with strides (sv, sc)
  const int64_t N = indices.numel(), C = weight.size(1);
  const int64_t sv = weight.strides()[0], sc = weight.strides()[1];
  const int64_t* ix = indices.data<int64_t>();
  dispatch_floating(weight.dtype(), "embedding", [&](auto zero) {
    using T = decltype(zero);
    T* o = out.data<T>();
    const T* w = weight.data<T>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n = 0; n < N; ++n) {
      const T* row = w + ix[n] * sv;
      for (int64_t c = 0; c < C; ++c) o[n * C + c] = row[c * sc];
    }
  });
}

IndexGroups::IndexGroups(const Tensor& indices, int64_t V) : start(V + 1, 0), order(indices.numel()) {
  // A counting sort: the positions n with ix[n] == v end up in increasing n. Each thread then
  // owns whole rows of dweight, so repeated indices accumulate without races and in a fixed order.
  const int64_t N = indices.numel();
  const int64_t* ix = indices.data<int64_t>();
  for (int64_t n = 0; n < N; ++n) ++start[ix[n] + 1];
  for (int64_t v = 0; v < V; ++v) start[v + 1] += start[v];
  std::vector<int64_t> next(start.begin(), start.end() - 1);
  for (int64_t n = 0; n < N; ++n) order[next[ix[n]]++] = n;
}

namespace {

// dw_row (C) += the rows at[0..count) of g (C each), in that order.
template <class T>
[[gnu::always_inline]] inline void add_index_rows_body(T* dw_row, const T* g, const int64_t* at, int64_t count,
                                                       int64_t C, bool avx512) {
  add_rows_in_order(dw_row, C, count, [&](int64_t k) { return g + at[k] * C; }, avx512);
}
TG_VEC_CLONES void add_index_rows(float* dw_row, const float* g, const int64_t* at, int64_t count, int64_t C) {
  add_index_rows_body(dw_row, g, at, count, C, runs_avx512_clones());
}
void add_index_rows(double* dw_row, const double* g, const int64_t* at, int64_t count, int64_t C) {
  add_index_rows_body(dw_row, g, at, count, C, false);
}

}  // namespace

void embedding_backward_team(const Tensor& dweight, const Tensor& dout, const IndexGroups& groups,
                             int64_t padding_idx) {
  // dweight (V, C), dout (N, C)
  const int64_t V = dweight.size(0), C = dweight.size(1);
  dispatch_floating(dweight.dtype(), "embedding", [&](auto zero) {
    using T = decltype(zero);
    T* dw = dweight.data<T>();
    const T* g = dout.data<T>();
    // Rows of dweight in chunks of a few (a vocabulary of 64 is 16 chunks on 2 threads), so that
    // the team shares a small vocabulary too; each row is one thread's, in order, whoever takes it.
    const int64_t chunk = std::max<int64_t>(1, V / (8 * omp_get_num_threads()));
#pragma omp for schedule(dynamic, chunk) nowait
    for (int64_t v = 0; v < V; ++v)
      if (v != padding_idx) add_index_rows(dw + v * C, g, groups.order.data() + groups.start[v],
                                           groups.start[v + 1] - groups.start[v], C);
  });
}

void embedding_backward_cpu(const Tensor& dweight, const Tensor& dout, const Tensor& indices, int64_t padding_idx) {
  // dweight (V, C), dout (N, C), indices (N)
  const IndexGroups groups(indices, dweight.size(0));
#pragma omp parallel if (indices.numel() * dweight.size(1) > kParallelGrain)
  embedding_backward_team(dweight, dout, groups, padding_idx);
}

}  // namespace tg
