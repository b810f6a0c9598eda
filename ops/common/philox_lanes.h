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

// philox_words fills whole groups of 32 counters, i.e. 128 words.
constexpr int64_t kPhiloxWords = 128;

// The instruction sets philox_words has a path for; best_philox_path() is the widest this CPU
// runs (baseline: SSE2 on x86-64, plain C++ elsewhere). The tests run every path the CPU has.
enum class PhiloxPath { avx512, avx2, baseline };
PhiloxPath best_philox_path();
bool cpu_runs(PhiloxPath path);

// bits[0..count) = the words of counters counter, counter+1, ...: bits[4 l + j] =
// philox(seed, counter + l)[j] of core/rng.h (= writes; count a multiple of kPhiloxWords).
void philox_words(uint32_t* bits, int64_t count, uint64_t seed, uint64_t counter,
                  PhiloxPath path = best_philox_path());

}  // namespace tg
