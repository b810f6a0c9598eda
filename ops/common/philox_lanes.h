#pragma once
// Dropout's keep-decisions on the CPU, many at a time (ops/dropout, the fused_attention CPU
// kernel). CPU only: the CUDA kernels call philox() of core/rng.h per thread, and .cu files do
// not include this header.
//
// Element e of a dropout's draw keeps as DropoutDraw::keeps of core/rng.h decides: from the
// words of consecutive counters, 32-bit draws are the words themselves and 16-bit ones their
// halves in memory order (HalfWord).
#include <cstdint>

namespace tg {

// A 16-bit draw read where philox_words wrote 32-bit words (GCC's may_alias): half e % 2 of word
// e / 2, the low half first on x86 and WebAssembly (little-endian), as DropoutDraw::keeps reads it.
typedef uint16_t HalfWord __attribute__((may_alias));

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
