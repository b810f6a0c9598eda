#pragma once
// Counter-based random numbers (Philox-4x32-10, Salmon et al., SC'11).
//
// A Generator is (seed, offset). Element i of a draw of n numbers is a pure function of
// (seed, offset, i), so the same seed gives the same numbers on every run, with any number
// of threads, and on the GPU (the CUDA kernels call the same philox() below). Each draw
// advances offset past the counters it used.
#include <array>
#include <cstdint>

#ifdef __CUDACC__
#define TG_HOST_DEVICE __host__ __device__
#else
#define TG_HOST_DEVICE
#endif

namespace tg {

using PhiloxBlock = std::array<uint32_t, 4>;

// Four 32-bit random words for counter `counter` under key `seed`.
TG_HOST_DEVICE inline PhiloxBlock philox(uint64_t seed, uint64_t counter) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{0xD2511F53u} * c0, p1 = uint64_t{0xCD9E8D57u} * c2;
    uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

// A 32-bit word to a float in (0, 1]: never 0, so log() is safe.
TG_HOST_DEVICE inline double uniform_from_bits(uint32_t bits) { return (bits + 1.0) / 4294967296.0; }

// Element i of a uniform draw at `offset`: word i%4 of counter offset + i/4.
TG_HOST_DEVICE inline double uniform_at(uint64_t seed, uint64_t offset, uint64_t i) {
  return uniform_from_bits(philox(seed, offset + i / 4)[i % 4]);
}

// A dropout's keep-decisions (ops/dropout and every op that drops). Element e is decided by a
// draw d of `bits` bits from counter offset + e / per_counter(): with 32 bits, word e % 4 whole;
// with 16, half e % 2 of word e % 8 / 2, the low half first, so one philox() call decides eight
// elements. Kept iff (d + 1) / 2^bits > p, i.e. d >= threshold = floor(p 2^bits): p == 1 keeps
// nothing, and the expected kept fraction is 1 - threshold / 2^bits, within 2^-bits of 1 - p.
struct DropoutDraw {
  uint64_t seed = 0, offset = 0;
  uint64_t threshold = 0;
  uint32_t bits = 32;  // 32 or 16

  TG_HOST_DEVICE uint64_t per_counter() const { return 128 / bits; }
  TG_HOST_DEVICE uint64_t counter(uint64_t e) const { return offset + e / per_counter(); }
  // Element e's decision, words = philox(seed, counter(e)).
  TG_HOST_DEVICE bool keeps(const PhiloxBlock& words, uint64_t e) const {
    const uint64_t j = e % per_counter();
    const uint32_t d = bits == 32 ? words[j] : words[j / 2] >> (16 * (j % 2)) & 0xffffu;
    return d >= threshold;
  }
  TG_HOST_DEVICE bool keeps_nothing() const { return threshold >> bits != 0; }  // p == 1
};

// Element i of a normal draw at `offset`: Box-Muller on words 0,1 (even i) or 2,3 (odd i)
// of counter offset + i/2.
double normal_at(uint64_t seed, uint64_t offset, uint64_t i);

class Generator {
 public:
  explicit Generator(uint64_t seed = 0) : seed_(seed) {}
  uint64_t seed() const { return seed_; }
  uint64_t offset() const { return offset_; }
  void set_state(uint64_t seed, uint64_t offset) { seed_ = seed, offset_ = offset; }

  // Reserves the counters for `count` draws of `per_counter` numbers each; returns the
  // offset the draw starts at.
  uint64_t reserve(uint64_t count, uint64_t per_counter) {
    uint64_t start = offset_;
    offset_ += (count + per_counter - 1) / per_counter;
    return start;
  }

 private:
  uint64_t seed_ = 0;
  uint64_t offset_ = 0;
};

// The process-wide generator used when none is passed.
Generator& default_generator();
void manual_seed(uint64_t seed);

}  // namespace tg
