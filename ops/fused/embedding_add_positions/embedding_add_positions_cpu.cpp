#include <algorithm>
#include <optional>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/embedding/embedding.h"
#include "ops/fused/embedding_add_positions/embedding_add_positions.h"
#include "ops/sum/sum.h"

namespace tg {

void embedding_add_positions_forward_cpu(const Tensor& out, const Tensor& indices, const Tensor& weight,
                                         const Tensor& positions, int64_t T) {
  // out (N, C), indices (N), weight (V, C) with strides (sv, sc), positions (P, C) with (sp, spc)
  const int64_t N = indices.numel(), C = weight.size(1);
  const int64_t sv = weight.strides()[0], sc = weight.strides()[1];
  const int64_t sp = positions.strides()[0], spc = positions.strides()[1];
  const int64_t* ix = indices.data<int64_t>();
  dispatch_floating(weight.dtype(), "embedding_add_positions", [&](auto zero) {
    using F = decltype(zero);
    F* o = out.data<F>();
    const F *w = weight.data<F>(), *p = positions.data<F>();
#pragma omp parallel for if (N * C > kParallelGrain)
    for (int64_t n = 0; n < N; ++n) {
      const F *row = w + ix[n] * sv, *position = p + (n % T) * sp;
      for (int64_t c = 0; c < C; ++c) o[n * C + c] = row[c * sc] + position[c * spc];  // add's order: x + table
    }
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
