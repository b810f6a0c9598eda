#include "data/epoch_order.h"

#include <bit>

#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "data/random.h"

namespace tg::data {

EpochOrder::EpochOrder(int64_t n, bool shuffle, uint64_t seed, int64_t epoch) : n_(n), shuffle_(shuffle) {
  if (n < 0) throw Error("DataLoader", fmt::format("a dataset of {} examples", n));
  if (epoch < 0) throw Error("DataLoader", fmt::format("epoch must be >= 0, got {}", epoch));
  if (!shuffle) return;
  if (n <= kListedOrderMax) {
    Generator gen;
    gen.set_state(seed, static_cast<uint64_t>(epoch) << 32);  // each epoch its own counters
    listed_ = random_permutation(n, gen);
    return;
  }
  const PhiloxBlock key = philox(seed, static_cast<uint64_t>(epoch));
  key_ = uint64_t{key[0]} | uint64_t{key[1]} << 32;
  const int bits = std::bit_width(static_cast<uint64_t>(n - 1));  // positions are below 2^bits
  half_bits_ = (bits + 1) / 2;
}

uint64_t EpochOrder::feistel(uint64_t x) const {
  const uint64_t mask = (uint64_t{1} << half_bits_) - 1;
  uint64_t left = x >> half_bits_, right = x & mask;
  for (uint64_t round = 0; round < 4; ++round) {
    const uint64_t mixed = left ^ (philox(key_, round << 32 | right)[0] & mask);
    left = right;
    right = mixed;
  }
  return left << half_bits_ | right;
}

int64_t EpochOrder::operator[](int64_t position) const {
  if (position < 0 || position >= n_)
    throw Error("DataLoader", fmt::format("position {} is outside an epoch of {} examples", position, n_));
  if (!shuffle_) return position;
  if (!listed_.empty()) return listed_[static_cast<size_t>(position)];
  // Cycle walking: the Feistel network permutes [0, 2^(2 * half_bits_)), at most 4 N values, so
  // following it from a position below N reaches another value below N within a few steps, and
  // the values so reached are a permutation of [0, N).
  uint64_t x = static_cast<uint64_t>(position);
  do x = feistel(x);
  while (x >= static_cast<uint64_t>(n_));
  return static_cast<int64_t>(x);
}

}  // namespace tg::data
