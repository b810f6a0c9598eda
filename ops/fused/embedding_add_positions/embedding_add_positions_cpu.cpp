#include <algorithm>
#include <optional>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/common/elementwise_cpu.h"
#include "ops/common/vec_math.h"
#include "ops/embedding/embedding.h"
#include "ops/fused/embedding_add_positions/embedding_add_positions.h"
#include "ops/sum/sum.h"

namespace tg {

namespace {

// Where embedding_add_positions_forward_cpu reads: weight (V, C) with strides (sv, sc), positions
// (P, C) with (sp, spc), the looked-up row of each of the N outputs, and the sequence length T.
template <class F>
struct LookedUpRows {
  const F *weight, *positions;
  int64_t sv, sc, sp, spc;
  const int64_t* ix;
  int64_t C, T;
};

// out rows [first, first + count) = weight row ix[n] + positions row n % T (add's order: x +
// table): the loop in the widest clone this CPU runs, called per chunk of rows (an OpenMP region's
// own loop is baseline x86-64). GCC versions the inner loop for unit column strides.
template <class F>
TG_VEC_CLONES void add_looked_up_rows(F* out, const LookedUpRows<F>& in, int64_t first, int64_t count) {
  for (int64_t n = first; n < first + count; ++n) {
    const F *row = in.weight + in.ix[n] * in.sv, *position = in.positions + (n % in.T) * in.sp;
    F* o = out + n * in.C;
    for (int64_t c = 0; c < in.C; ++c) o[c] = row[c * in.sc] + position[c * in.spc];
  }
}

}  // namespace

void embedding_add_positions_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& weight,
                                         const Tensor& positions, int64_t T) {
  // out (N, C), indices (N), weight (V, C), positions (P, C)
  const int64_t N = indices.numel(), C = weight.size(1);
  dispatch_floating(weight.dtype(), "embedding_add_positions", [&](auto zero) {
    using F = decltype(zero);
    const LookedUpRows<F> in{weight.data<F>(), positions.data<F>(), weight.strides()[0], weight.strides()[1],
                             positions.strides()[0], positions.strides()[1], indices.data<int64_t>(), C, T};
    F* o = out.data<F>();
    const int64_t rows_per_chunk = std::max<int64_t>(1, kElementwiseChunk / std::max<int64_t>(C, 1));
    for_chunks(N, rows_per_chunk, kParallelGrain / std::max<int64_t>(C, 1),
               [&](int64_t first, int64_t count) { add_looked_up_rows(o, in, first, count); });
  });
}

void embedding_add_positions_backward_cpu(const Tensor& dweight, const Tensor& dpositions, const Tensor& dout,
                                          const Tensor& indices, int64_t T, int64_t padding_idx) {
  // dweight (V, C) or undefined, dpositions (P, C) or undefined, dout (N, C), indices (N)
  const int64_t N = indices.numel(), C = dout.size(1);
  std::optional<IndexGroups> groups;
  if (dweight.defined()) groups.emplace(indices, dweight.size(0));
  dispatch_floating(dout.dtype(), "embedding_add_positions", [&](auto zero) {
    using F = decltype(zero);
    F* dp = dpositions.defined() ? dpositions.data<F>() : nullptr;
    if (dp) std::fill(dp + T * C, dp + dpositions.numel(), F(0));
    if (N == 0) {  // no sequence (or T = 0): nothing looked up, every sum empty
      if (dp) std::fill(dp, dp + T * C, F(0));
      return;
    }
#pragma omp parallel if (N * C > kParallelGrain)
    {
      if (groups) embedding_backward_team(dweight, dout, *groups, padding_idx);
      if (dp) sum_leading_rows_team(dp, dout.data<F>(), N / T, T * C);  // (N/T, T*C) -> (T*C)
    }
  });
}

}  // namespace tg
