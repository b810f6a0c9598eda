// philox_words: philox() of core/rng.h for many consecutive counters at once, in SIMD lanes.
//
// Shape: each 64-bit lane holds one counter's state word in its low half; the high half is
// never read (the multiply reads only low halves, and the output keeps only low halves). A
// round is then, per 8 (AVX-512), 4 (AVX2) or 2 (SSE2) counters,
//
//   p0 = c0 * M0, p1 = c2 * M1                          two 32x32->64 multiplies (vpmuludq)
//   c0 = (p1 >> 32) ^ c1 ^ k0, c2 = (p0 >> 32) ^ c3 ^ k1  a shift and a three-way xor each
//   c1 = p1, c3 = p0                                     the products' low halves: no move
//
// i.e. no widening or narrowing of 32-bit words anywhere. Groups of independent vectors hide
// the multiply's latency (5 cycles, then a shift and an xor before the next multiply).
//
// The multiply is the one intrinsic: GCC 12 compiles `(a & 0xffffffff) * m` on 64-bit lanes to
// vpmullq (3 uops, latency 15) with AVX-512 and to three vpmuludq without it (philox_words ran
// 1.85x slower that way with AVX-512, 3.2x with AVX2); the rest is GCC vector extensions. Each
// path is philox_body inlined into a function compiled for its instruction set (as
// ops/matmul/gemm_kernel_x86.cpp does). That function is `flatten`: mul_low_halves carries its
// target attribute, so it cannot be inlined into philox_body on its own, only into the path's
// function.
#include "ops/common/philox_lanes.h"

#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TG_PHILOX_X86 1
#else
#define TG_PHILOX_X86 0
#endif

namespace tg {

namespace {

template <int Bytes>
struct U64Vec {
  typedef uint64_t type __attribute__((vector_size(Bytes)));
};
template <int Bytes>
using U64 = typename U64Vec<Bytes>::type;

// p = the low 32 bits of each lane of a times those of b, as 64-bit products (vpmuludq). p by
// reference: a vector returned to philox_body, compiled without AVX, would warn -Wpsabi. The
// AVX-512 one is the masked form with every lane selected: GCC 12's _mm512_mul_epu32 passes an
// undefined vector that -Wmaybe-uninitialized reports.
#if TG_PHILOX_X86
__attribute__((target("avx512f"))) inline void mul_low_halves(U64<64>& p, const U64<64>& a, const U64<64>& b) {
  p = U64<64>(_mm512_maskz_mul_epu32(0xff, __m512i(a), __m512i(b)));
}
__attribute__((target("avx2"))) inline void mul_low_halves(U64<32>& p, const U64<32>& a, const U64<32>& b) {
  p = U64<32>(_mm256_mul_epu32(__m256i(a), __m256i(b)));
}
[[gnu::always_inline]] inline void mul_low_halves(U64<16>& p, const U64<16>& a, const U64<16>& b) {  // SSE2
  p = U64<16>(_mm_mul_epu32(__m128i(a), __m128i(b)));
}
#else
template <class V>
[[gnu::always_inline]] inline void mul_low_halves(V& p, const V& a, const V& b) {
  p = (a & 0xffffffff) * (b & 0xffffffff);
}
#endif

// bits[0..count) for counters counter.. (count a multiple of 4 * Vecs * lanes), Vecs vectors of
// Bytes bytes at a time: their four state words take 4 * Vecs registers.
template <int Bytes, int Vecs>
[[gnu::always_inline]] inline void philox_body(uint32_t* bits, int64_t count, uint64_t seed, uint64_t counter) {
  using V = U64<Bytes>;
  constexpr int L = Bytes / 8;  // counters per vector
  static_assert(kPhiloxWords % (4 * Vecs * L) == 0);
  V iota;
  for (int i = 0; i < L; ++i) iota[i] = i;
  const V m0 = V{} + 0xD2511F53u, m1 = V{} + 0xCD9E8D57u;
  for (int64_t w = 0; w < count; w += 4 * Vecs * L, counter += Vecs * L) {
    V c0[Vecs], c1[Vecs], c2[Vecs], c3[Vecs];
#pragma GCC unroll 16
    for (int v = 0; v < Vecs; ++v) {
      c0[v] = counter + v * L + iota;
      c1[v] = c0[v] >> 32;
      c2[v] = c3[v] = V{};
    }
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
#pragma GCC unroll 10
    for (int round = 0; round < 10; ++round) {
      const V key0 = V{} + k0, key1 = V{} + k1;
#pragma GCC unroll 16
      for (int v = 0; v < Vecs; ++v) {
        V p0, p1;
        mul_low_halves(p0, c0[v], m0);
        mul_low_halves(p1, c2[v], m1);
        c0[v] = (p1 >> 32) ^ c1[v] ^ key0;
        c2[v] = (p0 >> 32) ^ c3[v] ^ key1;
        c1[v] = p1;
        c3[v] = p0;
      }
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    // counter l's words 0,1 and 2,3 as two 64-bit halves (little-endian), interleaved
#pragma GCC unroll 16
    for (int v = 0; v < Vecs; ++v) {
      const V w01 = (c0[v] & 0xffffffff) | (c1[v] << 32), w23 = (c2[v] & 0xffffffff) | (c3[v] << 32);
      uint64_t out[2 * L];
      for (int i = 0; i < L; ++i) {
        out[2 * i] = w01[i];
        out[2 * i + 1] = w23[i];
      }
      std::memcpy(bits + w + 4 * L * v, out, sizeof out);
    }
  }
}

#if TG_PHILOX_X86
__attribute__((target("avx512f"), flatten)) void philox_avx512(uint32_t* bits, int64_t count, uint64_t seed,
                                                                uint64_t counter) {
  philox_body<64, 4>(bits, count, seed, counter);  // the state in 16 of the 32 registers
}
__attribute__((target("avx2"), flatten)) void philox_avx2(uint32_t* bits, int64_t count, uint64_t seed,
                                                          uint64_t counter) {
  philox_body<32, 4>(bits, count, seed, counter);  // 16 vectors: a few spill, still the fastest
}
#endif

void philox_baseline(uint32_t* bits, int64_t count, uint64_t seed, uint64_t counter) {
  philox_body<16, 8>(bits, count, seed, counter);  // SSE2 (32 registers' worth: some spill)
}

}  // namespace

bool cpu_runs(PhiloxPath path) {
#if TG_PHILOX_X86
  switch (path) {
    case PhiloxPath::avx512: return __builtin_cpu_supports("avx512f");
    case PhiloxPath::avx2: return __builtin_cpu_supports("avx2");
    case PhiloxPath::baseline: return true;
  }
#endif
  return path == PhiloxPath::baseline;
}

// Checked at the first call, not in a static initializer (before libgcc's CPU probe).
PhiloxPath best_philox_path() {
  static const PhiloxPath path = cpu_runs(PhiloxPath::avx512) ? PhiloxPath::avx512
                                 : cpu_runs(PhiloxPath::avx2) ? PhiloxPath::avx2
                                                              : PhiloxPath::baseline;
  return path;
}

void philox_words(uint32_t* bits, int64_t count, uint64_t seed, uint64_t counter,
                  [[maybe_unused]] PhiloxPath path) {
#if TG_PHILOX_X86
  if (path == PhiloxPath::avx512) return philox_avx512(bits, count, seed, counter);
  if (path == PhiloxPath::avx2) return philox_avx2(bits, count, seed, counter);
#endif
  philox_baseline(bits, count, seed, counter);
}

}  // namespace tg
