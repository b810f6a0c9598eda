#include <algorithm>
#include <optional>

#include "core/dispatch.h"
#include "core/strided_loop.h"
#include "ops/embedding/embedding.h"
#include "ops/fused/embedding_add_positions/embedding_add_positions.h"
#include "ops/sum/sum.h"

namespace tg {

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
