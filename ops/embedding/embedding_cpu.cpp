#include <algorithm>
#include <vector>

#include <omp.h>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/vec_math.h"
#include "ops/embedding/embedding.h"

namespace tg {

namespace {

// Where embedding_forward_cpu reads: weight (V, C) with strides (sv, sc), the index of each of the
// N output rows, and with positions (P, C), strides (sp, spc), the sequence length T.
template <class F>
struct LookedUpRows {
  const F* weight;
  int64_t sv, sc;
  const int64_t* ix;
  int64_t C;
  const F* positions;  // or null
  int64_t sp, spc, T;
};

// out rows [first, first + count) = weight row ix[n] (+ positions row n % T), in the widest clone
// this CPU runs, called per chunk of rows (an OpenMP region's own loop is baseline x86-64). GCC
// versions the inner loops for unit column strides.
template <class F, bool WithPositions>
TG_VEC_CLONES void copy_looked_up_rows(F* out, const LookedUpRows<F>& in, int64_t first, int64_t count) {
  for (int64_t n = first; n < first + count; ++n) {
    const F* row = in.weight + in.ix[n] * in.sv;
    F* o = out + n * in.C;
    if constexpr (WithPositions) {
      const F* position = in.positions + (n % in.T) * in.sp;
      for (int64_t c = 0; c < in.C; ++c) o[c] = row[c * in.sc] + position[c * in.spc];  // add's order: x + table
    } else {
      for (int64_t c = 0; c < in.C; ++c) o[c] = row[c * in.sc];
    }
  }
}

}  // namespace

void embedding_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& weight, const Tensor& positions,
                           int64_t T) {
  // out (N, C), indices (N), weight (V, C), positions (P, C) or undefined
  const int64_t N = indices.numel(), C = weight.size(1);
  const bool with_positions = positions.defined();
  dispatch_floating(weight.dtype(), with_positions ? "embedding_add_positions" : "embedding", [&](auto zero) {
    using F = decltype(zero);
    const LookedUpRows<F> in{weight.data<F>(),
                             weight.strides()[0],
                             weight.strides()[1],
                             indices.data<int64_t>(),
                             C,
                             with_positions ? positions.data<F>() : nullptr,
                             with_positions ? positions.strides()[0] : 0,
                             with_positions ? positions.strides()[1] : 0,
                             T};
    F* o = out.data<F>();
    for_row_chunks(N, C, kParallelGrain, [&](int64_t first, int64_t count) {
      if (with_positions)
        copy_looked_up_rows<F, true>(o, in, first, count);
      else
        copy_looked_up_rows<F, false>(o, in, first, count);
    });
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
