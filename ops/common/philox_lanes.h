#pragma once
// Dropout's keep-decisions on the CPU, many at a time (ops/dropout, the fused_attention CPU
// kernel). CPU only: the CUDA kernels call philox() of core/rng.h per thread, and .cu files do
// not include this header.
//
// Element e of a draw at `offset` keeps iff uniform_at(seed, offset, e) > p, i.e.
// uniform_from_bits(word) > p for word e%4 of philox(seed, offset + e/4).
#include <cmath>
#include <cstdint>

namespace tg {

// uniform_from_bits(bits) = (bits + 1) / 2^32 > p  <=>  bits >= floor(p 2^32) (exact: p 2^32 is).
// 2^32 (p = 1) keeps nothing.
inline uint64_t keep_threshold(double p) { return static_cast<uint64_t>(std::floor(p * 4294967296.0)); }

// Philox counters computed together: 128 elements. Wide enough that the compiler keeps many
// independent vectors of products in flight (8 counters ran 2.4x slower than 32 with AVX2 and
// AVX-512).
constexpr int64_t kPhiloxLanes = 32;

// philox() of core/rng.h for the kPhiloxLanes counters counter, counter+1, ..., lane by lane in
// loops the compiler vectorises: bits[4 l + j] = philox(seed, counter + l)[j], i.e. the words of
// 128 consecutive elements. (The tests check the masks against uniform_at, i.e. against philox().)
// Always inlined: the callers are TG_VEC_CLONES functions, and an out-of-line copy would be
// compiled for the baseline CPU only.
[[gnu::always_inline]] inline void philox_lanes(uint32_t bits[4 * kPhiloxLanes], uint64_t seed, uint64_t counter) {
  constexpr int64_t kL = kPhiloxLanes;
  uint32_t c0[kL], c1[kL], c2[kL] = {}, c3[kL] = {};
  for (int64_t l = 0; l < kL; ++l) {
    c0[l] = static_cast<uint32_t>(counter + l);
    c1[l] = static_cast<uint32_t>((counter + l) >> 32);
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
#pragma omp simd
    for (int64_t l = 0; l < kL; ++l) {
      const uint64_t p0 = uint64_t{0xD2511F53u} * c0[l], p1 = uint64_t{0xCD9E8D57u} * c2[l];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[l] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[l] ^ k1;
      c1[l] = static_cast<uint32_t>(p1);
      c3[l] = static_cast<uint32_t>(p0);
      c0[l] = n0;
      c2[l] = n2;
    }
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  for (int64_t l = 0; l < kL; ++l) {
    bits[4 * l] = c0[l];
    bits[4 * l + 1] = c1[l];
    bits[4 * l + 2] = c2[l];
    bits[4 * l + 3] = c3[l];
  }
}

}  // namespace tg
