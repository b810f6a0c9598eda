#pragma once
// matmul: matrix product with PyTorch's rules (torch.matmul).
//   a (K)          @ b (K)           -> out ()              dot product
//   a (M,K)        @ b (K,N)         -> out (M,N)
//   a (K)          @ b (..., K,N)    -> out (..., N)        a read as (1,K), the 1 removed
//   a (..., M,K)   @ b (K)           -> out (..., M)        b read as (K,1), the 1 removed
//   a (..A, M,K)   @ b (..B, K,N)    -> out (..., M,N)      batch dims ..A and ..B broadcast:
//                                                            (2,1,3,4) @ (5,4,6) -> (2,5,3,6)
//   out[..., i, j] = sum_k a[..., i, k] * b[..., k, j]
// 0-d operands are an error, as are differing inner dims K.
//
// Forward formula and backward rule per input: TG_OP_DOC in ops/matmul/matmul.cpp (docs/ops.md).
//
// Derivation, for one batch element (batch dims only broadcast, so their gradients are
// summed over the dims that were broadcast, which is what sum_to does):
//   out[i,j] = sum_k a[i,k] b[k,j]                       a (M,K), b (K,N), out/grad (M,N)
//   dL/da[i,k] = sum_j grad[i,j] * d out[i,j]/d a[i,k] = sum_j grad[i,j] b[k,j]
//              = (grad @ b^T)[i,k]                      (M,N) @ (N,K) -> (M,K)
//   dL/db[k,j] = sum_i grad[i,j] * d out[i,j]/d b[k,j] = sum_i a[i,k] grad[i,j]
//              = (a^T @ grad)[k,j]                      (K,M) @ (M,N) -> (K,N)
// The vector cases are the same with M = 1 (a is a row) or N = 1 (b is a column): for
// a (K) @ b (K,N), da (K) = b @ grad(N) and db (K,N) = outer(a, grad).
// b^T and a^T are transposed views, not copies: the GEMM kernel reads them column-major.
#include <span>

#include "core/tensor.h"
#include "ops/matmul/gemm_cpu.h"

namespace tg {


Tensor matmul(const Tensor& a, const Tensor& b);

// x (..., R, C) -> x^T (..., C, R): a view (no copy, not on the tape), read column-major by the
// GEMM kernels; for the kernels' operands.
Tensor transposed_view(const Tensor& x);

// Kernels: out (batch..., M, N) = a (..., M, K) @ b (..., K, N) (= writes). out contiguous;
// a and b of rank >= 2 with batch dims broadcasting to out's; any strides. On the CPU a defined
// bias (N), contiguous, is added to every row of out in the same pass (Linear's), the activation
// applied as the sums complete (linear_relu's relu), and side work shares the product's parallel
// region (gemm_cpu.h).
void matmul_forward_cpu(const Tensor& out, const Tensor& a, const Tensor& b, const Tensor& bias = {},
                        GemmSideWorks side = {}, GemmActivation activation = GemmActivation::none);
// out += a @ b on the CPU, with the bits of matmul_forward_cpu into a tensor of its own added
// to out (add_into_), in one pass: a backward rule adding into a gradient already gathered.
void matmul_add_cpu(const Tensor& out, const Tensor& a, const Tensor& b);
// One of matmul_group_cpu's products: out (M,N) = a (M,K) @ b (K,N) (+ bias (N) on every row,
// where defined, contiguous), or out += that where add. out contiguous; a and b 2-D, any strides.
struct MatmulProduct {
  Tensor out, a, b, bias;
  bool add;
};
// Up to 3 products on the CPU in one parallel region (gemm_cpu_group), the side work in it too:
// a backward rule's two gradients, or the projections of one input. Each has the bits
// matmul_forward_cpu (or matmul_add_cpu) gives it alone.
void matmul_group_cpu(std::span<const MatmulProduct> products, GemmSideWorks side = {});
void matmul_forward_cuda(const Tensor& out, const Tensor& a, const Tensor& b);

}  // namespace tg
