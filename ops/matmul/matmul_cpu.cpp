#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "core/dispatch.h"
#include "core/error.h"
#include "ops/matmul/gemm_cpu.h"
#include "ops/matmul/gemm_input.h"
#include "ops/matmul/matmul.h"

namespace tg {

namespace {

// Whether the batch of products a[p] @ b is one product with the rows stacked: b the same
// matrix for every p (a broadcast weight, as in Linear) and a's matrices row-major, each
// starting right where the previous one's rows end (a contiguous (batch..., M, K), or a view
// with the same row step). Then out (batch*M, N) = a (batch*M, K) @ b (K, N) in one GEMM, which
// packs b once instead of once per batch element and splits one tall product over the threads.
bool stacks_rows(const GemmInput& a, const GemmInput& b, int64_t M) {
  if (a.trans || a.offsets.size() < 2) return false;
  for (size_t p = 1; p < a.offsets.size(); ++p)
    if (b.offsets[p] != b.offsets[0] || a.offsets[p] != a.offsets[0] + static_cast<int64_t>(p) * M * a.ld)
      return false;
  return true;
}

// out = (or +=) a @ b (+ bias) (then the activation), with the side work in the product's region.
void matmul_cpu(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias, GemmSideWorks side,
                bool accumulate, GemmActivation activation = GemmActivation::none) {
  // out (batch..., M, N), a (..., M, K), b (..., K, N), bias (N) or undefined
  const int64_t M = out.size(-2), N = out.size(-1), K = a.size(-1);
  const Shape batch(out.shape().begin(), out.shape().end() - 2);
  if (out.numel() == 0) return run_side_alone(side, {GemmPhase::before, GemmPhase::chain, GemmPhase::after});
  const GemmInput ga = gemm_input(a, batch), gb = gemm_input(b, batch);
  const bool stacked = stacks_rows(ga, gb, M);
  const int64_t products = stacked ? 1 : numel(batch), rows = stacked ? numel(batch) * M : M;
  dispatch_floating(out.dtype(), "matmul", [&](auto zero) {
    using T = decltype(zero);
    gemm_cpu<T>(out.data<T>(), {ga.x.data<T>(), ga.offsets.data(), ga.ld, ga.trans},
                {gb.x.data<T>(), gb.offsets.data(), gb.ld, gb.trans}, products, rows, N, K,
                bias.defined() ? bias.data<T>() : nullptr, side, accumulate, activation);
  });
}

}  // namespace

void matmul_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias,
                        GemmSideWorks side, GemmActivation activation) {
  matmul_cpu(out, a, b, bias, side, false, activation);
}

void matmul_add_cpu(const Tensor& out, const Tensor& a, const Tensor& b) {
  matmul_cpu(out, a, b, {}, {}, true);
  out.storage()->bump_version();
}

namespace {

// The products of a group in one parallel region, none of them empty.
void gemm_group(std::span<const MatmulProduct> products, GemmSideWorks side) {
  std::array<GemmInput, 2 * kGemmMaxGroup> inputs;  // a and b of each product
  for (size_t i = 0; i < products.size(); ++i) {
    inputs[2 * i] = gemm_input(products[i].a, {});
    inputs[2 * i + 1] = gemm_input(products[i].b, {});
  }
  dispatch_floating(products[0].out.dtype(), "matmul", [&](auto zero) {
    using T = decltype(zero);
    std::array<GemmProduct<T>, kGemmMaxGroup> gemms;
    for (size_t i = 0; i < products.size(); ++i) {
      const MatmulProduct& p = products[i];
      const GemmInput &a = inputs[2 * i], &b = inputs[2 * i + 1];
      gemms[i] = {p.out.data<T>(), {a.x.data<T>(), a.offsets.data(), a.ld, a.trans},
                  {b.x.data<T>(), b.offsets.data(), b.ld, b.trans}, p.out.size(0), p.out.size(1), p.a.size(1),
                  p.bias.defined() ? p.bias.data<T>() : nullptr, p.add};
    }
    gemm_cpu_group<T>(std::span(gemms.data(), products.size()), side);
  });
}

}  // namespace

void matmul_group_cpu(std::span<const MatmulProduct> products, GemmSideWorks side) {
  if (products.empty() || products.size() > size_t(kGemmMaxGroup))
    throw Error("matmul", fmt::format("matmul_group_cpu takes 1 to {} products, got {}", kGemmMaxGroup,
                                      products.size()));
  if (std::none_of(products.begin(), products.end(), [](const MatmulProduct& p) { return p.out.numel() == 0; }))
    gemm_group(products, side);
  else {  // one at a time, as matmul_forward_cpu and matmul_add_cpu run them
    run_side_alone(side, {GemmPhase::before});
    for (const MatmulProduct& p : products) matmul_cpu(p.out, p.a, p.b, p.bias, {}, p.add);
    run_side_alone(side, {GemmPhase::chain, GemmPhase::after});
  }
  for (const MatmulProduct& p : products)
    if (p.add) p.out.storage()->bump_version();
}

}  // namespace tg
