#pragma once
// gemm_cpu: the CPU matrix-multiply kernel behind matmul (and its backward). Row-major.
// For every batch element p in [0, batch):
//
//   c[p] (M,N) = op(a[p]) (M,K) @ op(b[p]) (K,N)          (= writes; += where accumulate)
//              + bias (N) on every row                      (where bias != nullptr: Linear's)
//   then c[p] = relu(c[p])                                  (activation relu: linear_relu's; not
//                                                            with accumulate)
//
// Accumulating gives the bits of writing the product into a tensor of its own and adding that
// to c (c + product, the product's sums taken as when written), without the second pass: a
// backward rule adding its gradient into one already gathered.
//
// c is contiguous: matrix p starts at c + p*M*N. Each input is a GemmMatrix: matrix p starts
// at data + offsets[p] (offsets may repeat: a broadcast operand), its stored rows are `ld`
// elements apart, and `trans` says it is stored transposed:
//
//   trans == false: op(x) = x,   element (r, k) of op(x) at r*ld + k   (row-major)
//   trans == true:  op(x) = x^T, element (r, k) of op(x) at k*ld + r   (column-major)
//
// so matmul's backward (da = grad @ b^T, db = a^T @ grad) passes transposed views of the
// saved operands without copying them. Sums accumulate in T.
//
// How it is fast (gemm_cpu.cpp): op(a) and op(b) are copied, block by block, into packed
// panels (gemm_pack.h) that a register-blocked micro-kernel (gemm_kernels.h) streams through;
// the blocks are sized for the caches. OpenMP threads take whole batch elements, or one part
// (rows, columns or depth) of a product each, and never wait for each other inside a product.
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

namespace tg {

template <class T>
struct GemmMatrix {
  const T* data;
  const int64_t* offsets;  // one per batch element, in elements from data
  int64_t ld;              // elements between consecutive stored rows
  bool trans;
};

// Work that shares the products' OpenMP parallel region instead of opening its own: run(context,
// thread, threads) is called once by each thread of the team, or once as (0, 1) when the products
// run on one thread, at its phase:
//   before  before any part of a product; the team waits for every thread's before work to end
//           (a fused op's gradient made ready for the products: relu_dropout's mask applied)
//   chain   beside the parts, one thread after the other: thread 0 before its parts, thread t as
//           soon as thread t - 1's call has returned (it looks between its parts, and waits after
//           them). It must not touch c (Linear's bias gradient: thread t adds its rows, the rows
//           its before work wrote, to the column sums thread t - 1 left, so that each thread reads
//           rows from its own cache and the sums are one thread's, in row order)
//   after   once every product is complete, depth splits summed (a fused op's epilogue on c:
//           relu_dropout's draw on Linear's output)
enum class GemmPhase { before, chain, after };
struct GemmSideWork {
  void (*run)(const void* context, int thread, int threads) = nullptr;
  const void* context = nullptr;
  GemmPhase phase = GemmPhase::chain;
};
using GemmSideWorks = std::span<const GemmSideWork>;
// The side work of the given phases, in their order, each once as (0, 1): where no team runs.
void run_side_alone(GemmSideWorks side, std::initializer_list<GemmPhase> phases);

// What gemm_cpu applies to each element of c once its sums are complete: nothing, or relu
// (relu_math::forward: max(c, 0), NaN kept), in the micro-kernel's registers where the tile's
// last block of k ends (in the sum of a depth split's parts where the product is split over k).
enum class GemmActivation { none, relu };

template <class T>
void gemm_cpu(T* c, const GemmMatrix<T>& a, const GemmMatrix<T>& b, int64_t batch, int64_t M, int64_t N, int64_t K,
              const T* bias = nullptr, GemmSideWorks side = {}, bool accumulate = false,
              GemmActivation activation = GemmActivation::none);

// One product of a group: c (M,N) = (or +=, where accumulate) op(a) (M,K) @ op(b) (K,N) (+ bias
// (N) on every row, where bias != nullptr), c contiguous, a and b one matrix each (offsets[0]).
template <class T>
struct GemmProduct {
  T* c;
  GemmMatrix<T> a, b;
  int64_t M, N, K;
  const T* bias;
  bool accumulate;
};

// Up to kGemmMaxGroup independent products in one OpenMP parallel region where each is large enough to
// share the threads (the q, k and v projections of one input; a Linear layer's dx and dweight in
// backward), the side work in it too; otherwise one gemm_cpu call each, with the side work run
// alone: the before work ahead of them, the chain and after work once they are done. Either way
// each product has the bits gemm_cpu gives it alone: it is cut into the same parts.
inline constexpr int kGemmMaxGroup = 3;
template <class T>
void gemm_cpu_group(std::span<const GemmProduct<T>> products, GemmSideWorks side = {});

// The micro-kernel gemm_cpu runs: by default the best this CPU has (checked at run time):
// "avx512" (AVX-512F), else "avx2" (AVX2 + FMA), else "portable" (C++ only). Tests and
// benchmarks run each of gemm_cpu_kernels() in turn with gemm_cpu_force_kernel(name);
// gemm_cpu_force_kernel("") goes back to the best. gemm_cpu_kernel_name() says which one runs now.
std::vector<std::string> gemm_cpu_kernels();  // the ones this CPU can run, best first
void gemm_cpu_force_kernel(const std::string& name);  // throws for a kernel not in gemm_cpu_kernels()
const char* gemm_cpu_kernel_name();

}  // namespace tg
