#include "core/dispatch.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/matmul/gemm_input.h"
#include "ops/matmul/matmul.h"

namespace tg {

void matmul_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  // out (batch..., M, N), a (..., M, K), b (..., K, N)
  const int64_t M = out.size(-2), N = out.size(-1), K = a.size(-1);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  if (out.numel() == 0) return;
  const GemmInput ga = gemm_input(a, batch), gb = gemm_input(b, batch);
  dispatch_floating(out.dtype(), "matmul", [&](auto zero) {
    using T = decltype(zero);
    gemm_cpu<T>(out.data<T>(), {ga.x.data<T>(), ga.offsets.data(), ga.ld, ga.trans},
                {gb.x.data<T>(), gb.offsets.data(), gb.ld, gb.trans}, numel(batch), M, N, K);
  });
}

}  // namespace tg
