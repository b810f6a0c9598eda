#pragma once
// How a dropout keeps element i (DropoutDraw of core/rng.h, reserve_dropout of ops/dropout),
// written out again for the tests that work a mask by hand: from numerics version 3 on, 16-bit
// draws where p is in [2^-8, 1 - 2^-8], half i % 2 of word i % 8 / 2 of counter offset + i / 8;
// else 32-bit ones, word i % 4 of counter offset + i / 4.
#include <cstdint>

#include "core/numerics.h"
#include "core/rng.h"

namespace tg::test {

inline bool draws_16_bits(double p, int64_t version) { return version >= 3 && p >= 1.0 / 256 && p <= 1 - 1.0 / 256; }

// Element i's uniform u in (0, 1] of the draw at (seed, offset) for probability p: kept iff u > p.
inline double dropout_uniform_at(uint64_t seed, uint64_t offset, uint64_t i, double p,
                                 int64_t version = numerics()) {
  if (!draws_16_bits(p, version)) return uniform_at(seed, offset, i);
  const uint32_t word = philox(seed, offset + i / 8)[i % 8 / 2];
  return ((i % 2 == 0 ? word & 0xffffu : word >> 16) + 1.0) / 65536;
}

// The Philox counters a draw of n elements reserves.
inline uint64_t dropout_counters(uint64_t n, double p, int64_t version = numerics()) {
  const uint64_t per_counter = draws_16_bits(p, version) ? 8 : 4;
  return (n + per_counter - 1) / per_counter;
}

}  // namespace tg::test
