#pragma once
// The micro-kernels of gemm_cpu. Each computes one (mr, nr) tile of c:
//
//   c (mr,nr) = a_tile (mr,kc) @ b_panel (kc,nr)     (accumulate == false: = writes)
//   c (mr,nr) += a_tile (mr,kc) @ b_panel (kc,nr)    (accumulate == true: += accumulates)
//   and + bias (nr) on every row, where bias != nullptr (unaligned)
//   then c = relu(c) = (c <= 0 ? 0 : c, NaN kept), where relu: the tile's last block of k, its
//   sums complete, while they are still in registers (linear_relu's activation)
//
//   a_tile[i, k] at a[i*a_rs + k*a_ks]: packed (a_rs 1, a_ks mr) or rows read in place (a_ks 1)
//   b_panel[k, j] at b[k*nr + j]: packed, 64-byte aligned
//
// c's rows are ldc elements apart; kc >= 1.
#include <cstdint>
#include <span>

namespace tg {

template <class T>
struct MicroKernel {
  int mr, nr;  // tile rows and columns
  void (*run)(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b_panel, const T* bias, T* c,
              int64_t ldc, bool accumulate, bool relu);
};

// Each family's micro-kernels, its default first. The kernels of one family differ only in the
// tile's shape: each element of c is the same chain of multiply-adds over k in each, so they give
// the same bits (tests/ops/gemm_tuning_test.cpp), and gemm_tuning.h may pick any of them.

// AVX2 + FMA (gemm_kernel_x86.cpp): f32 6x16 and 4x24, f64 6x8 and 4x12. Run them only where
// cpu_has_avx2_fma() is true; the rest of the library needs no more than baseline x86-64.
template <class T>
std::span<const MicroKernel<T>> avx2_micro_kernels();
bool cpu_has_avx2_fma();

// AVX-512F (gemm_kernel_x86.cpp): f32 12x32, 8x32, 8x48 and 6x64; f64 12x16, 8x16, 8x24 and
// 6x32. Run them only where cpu_has_avx512f() is true.
template <class T>
std::span<const MicroKernel<T>> avx512_micro_kernels();
bool cpu_has_avx512f();

// Portable kernels for any CPU (gemm_kernel_portable.cpp: C++ and the GCC/Clang vector
// extension, no target-specific code): f32 4x8, f64 6x4.
template <class T>
std::span<const MicroKernel<T>> portable_micro_kernels();

}  // namespace tg
