#pragma once
// The micro-kernels of gemm_cpu. Each computes one (mr, nr) tile of c:
//
//   c (mr,nr) = a_tile (mr,kc) @ b_panel (kc,nr)     (accumulate == false: = writes)
//   c (mr,nr) += a_tile (mr,kc) @ b_panel (kc,nr)    (accumulate == true: += accumulates)
//   and + bias (nr) on every row, where bias != nullptr (unaligned)
//
//   a_tile[i, k] at a[i*a_rs + k*a_ks]: packed (a_rs 1, a_ks mr) or rows read in place (a_ks 1)
//   b_panel[k, j] at b[k*nr + j]: packed, 64-byte aligned
//
// c's rows are ldc elements apart; kc >= 1.
#include <cstdint>

namespace tg {

template <class T>
struct MicroKernel {
  int mr, nr;  // tile rows and columns
  void (*run)(int64_t kc, const T* a, int64_t a_rs, int64_t a_ks, const T* b_panel, const T* bias, T* c,
              int64_t ldc, bool accumulate);
};

// AVX2 + FMA kernels (gemm_kernel_x86.cpp): f32 6x16, f64 6x8. Run them only where
// cpu_has_avx2_fma() is true; the rest of the library needs no more than baseline x86-64.
template <class T>
MicroKernel<T> avx2_micro_kernel();
bool cpu_has_avx2_fma();

// AVX-512F kernels (gemm_kernel_x86.cpp): f32 12x32, f64 12x16. Run them only where
// cpu_has_avx512f() is true.
template <class T>
MicroKernel<T> avx512_micro_kernel();
bool cpu_has_avx512f();

// Portable kernels for any CPU (gemm_kernel_portable.cpp: C++ and the GCC/Clang vector
// extension, no target-specific code): f32 4x8, f64 6x4.
template <class T>
MicroKernel<T> portable_micro_kernel();

}  // namespace tg
