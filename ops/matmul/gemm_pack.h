#pragma once
// Packing for gemm_cpu (gemm_cpu.cpp): copies a block of op(a) or op(b) into the panels the
// micro-kernels read (gemm_kernels.h), whichever way the operand is stored.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/error.h"
#include "ops/common/vec_math.h"

namespace tg {

namespace gemm_pack {

// Where x's rows are contiguous for each k, the rows are copied kStrip values of k at a time
// across all panels: kStrip source rows stream side by side, each panel is written in order.
inline constexpr int64_t kStrip = 8;

// dst[k*W + r] = src[r*rs + k] for r < W and k < kSteps<T> (16 bytes of T): one step of the
// transposing copy. With SSE2 (every x86-64), 4x4 float and 2x2 double register transposes.
template <class T>
inline constexpr int64_t kSteps = 16 / sizeof(T);

template <int W>
void transpose_step(float* dst, const float* src, int64_t rs) {
  static_assert(W % 2 == 0);
#if defined(__SSE2__)
  int r = 0;
  for (; r + 4 <= W; r += 4) {
    __m128 x0 = _mm_loadu_ps(src + r * rs), x1 = _mm_loadu_ps(src + (r + 1) * rs);
    __m128 x2 = _mm_loadu_ps(src + (r + 2) * rs), x3 = _mm_loadu_ps(src + (r + 3) * rs);
    _MM_TRANSPOSE4_PS(x0, x1, x2, x3);
    _mm_storeu_ps(dst + r, x0);
    _mm_storeu_ps(dst + W + r, x1);
    _mm_storeu_ps(dst + 2 * W + r, x2);
    _mm_storeu_ps(dst + 3 * W + r, x3);
  }
  if (r < W) {  // two rows left: pairs (x0[k], x1[k])
    const __m128 x0 = _mm_loadu_ps(src + r * rs), x1 = _mm_loadu_ps(src + (r + 1) * rs);
    const __m128 lo = _mm_unpacklo_ps(x0, x1), hi = _mm_unpackhi_ps(x0, x1);
    _mm_storel_pi(reinterpret_cast<__m64*>(dst + r), lo);
    _mm_storeh_pi(reinterpret_cast<__m64*>(dst + W + r), lo);
    _mm_storel_pi(reinterpret_cast<__m64*>(dst + 2 * W + r), hi);
    _mm_storeh_pi(reinterpret_cast<__m64*>(dst + 3 * W + r), hi);
  }
#else
  for (int64_t k = 0; k < kSteps<float>; ++k)
    for (int r = 0; r < W; ++r) dst[k * W + r] = src[r * rs + k];
#endif
}

template <int W>
void transpose_step(double* dst, const double* src, int64_t rs) {
  static_assert(W % 2 == 0);
#if defined(__SSE2__)
  for (int r = 0; r < W; r += 2) {
    const __m128d x0 = _mm_loadu_pd(src + r * rs), x1 = _mm_loadu_pd(src + (r + 1) * rs);
    _mm_storeu_pd(dst + r, _mm_unpacklo_pd(x0, x1));
    _mm_storeu_pd(dst + W + r, _mm_unpackhi_pd(x0, x1));
  }
#else
  for (int64_t k = 0; k < kSteps<double>; ++k)
    for (int r = 0; r < W; ++r) dst[k * W + r] = src[r * rs + k];
#endif
}

}  // namespace gemm_pack

// Packs x(r, k) = src[r*rs + k*ks], r in [0, len), k in [0, kc), into ceil(len/W) panels of
// (kc, W): panel q holds x(q*W + r, k) at [k*W + r], rows past len zero. Used for both
// operands: a block of op(a) is x(i, k), one of op(b) is x(j, k). rs == 1 or ks == 1. One clone
// per instruction set (TG_VEC_CLONES): its copies move 32 or 64 bytes at a time, not SSE2's 16.
template <class T, int W>
TG_VEC_CLONES void pack_panels(T* dst, const T* src, int64_t rs, int64_t ks, int64_t len, int64_t kc) {
  using namespace gemm_pack;
  const int64_t full = len / W * W;  // rows in whole panels; panel q (a multiple of W) at dst + q*kc
  if (rs == 1) {  // x's rows are contiguous for each k: copy W at a time
    for (int64_t k0 = 0; k0 < kc; k0 += kStrip) {
      const int64_t k1 = std::min(kc, k0 + kStrip);
      for (int64_t q = 0; q < full; q += W)
        for (int64_t k = k0; k < k1; ++k) std::memcpy(dst + q * kc + k * W, src + k * ks + q, W * sizeof(T));
    }
  } else {  // ks == 1: W rows read side by side along k, transposed kSteps at a time
    for (int64_t q = 0; q < full; q += W) {
      int64_t k = 0;
      for (; k + kSteps<T> <= kc; k += kSteps<T>) transpose_step<W>(dst + q * kc + k * W, src + q * rs + k, rs);
      for (; k < kc; ++k)
        for (int r = 0; r < W; ++r) dst[q * kc + k * W + r] = src[(q + r) * rs + k];
    }
  }
  if (full == len) return;
  T* d = dst + full * kc;  // the last panel, part empty
  const T* s = src + full * rs;
  for (int64_t k = 0; k < kc; ++k)
    for (int r = 0; r < W; ++r) d[k * W + r] = full + r < len ? s[r * rs + k * ks] : T(0);
}

template <class T>
using PackFn = void (*)(T* dst, const T* src, int64_t rs, int64_t ks, int64_t len, int64_t kc);

// pack_panels for the panel widths of the micro-kernels.
template <class T>
PackFn<T> panel_packer(int width) {
  switch (width) {
    case 4: return pack_panels<T, 4>;
    case 6: return pack_panels<T, 6>;
    case 8: return pack_panels<T, 8>;
    case 12: return pack_panels<T, 12>;
    case 16: return pack_panels<T, 16>;
    case 24: return pack_panels<T, 24>;
    case 32: return pack_panels<T, 32>;
    case 48: return pack_panels<T, 48>;
    case 64: return pack_panels<T, 64>;
    default: throw Error("matmul", "no packing for micro-kernel panels of width " + std::to_string(width));
  }
}

}  // namespace tg
