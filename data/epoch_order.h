#pragma once
// The order in which one epoch visits a dataset's N examples (DataLoader): position -> example.
//
//   without shuffle           position i visits example i
//   N <= kListedOrderMax      random_permutation(N) drawn from Generator(seed) at offset
//                             epoch * 2^32, held as a list (8 bytes an example)
//   larger N                  a keyed bijection of [0, N), computed per position: a 4-round
//                             Feistel network on the next even power of two, walking the cycle
//                             until it lands below N, its round function Philox under a key drawn
//                             from (seed, epoch). Nothing is held: a text of 45 million windows
//                             needs no 360 MB list.
//
// Either way the order depends only on (N, shuffle, seed, epoch), so a resumed run visits the
// examples an uninterrupted one would.
#include <cstdint>
#include <vector>

namespace tg::data {

inline constexpr int64_t kListedOrderMax = int64_t{1} << 22;  // 4,194,304 examples, a 32 MiB list

class EpochOrder {
 public:
  EpochOrder(int64_t n, bool shuffle, uint64_t seed, int64_t epoch);

  int64_t size() const { return n_; }
  // The example that position `position` in [0, size()) visits.
  int64_t operator[](int64_t position) const;

 private:
  uint64_t feistel(uint64_t x) const;  // a bijection of [0, 2^(2 * half_bits_))

  int64_t n_;
  bool shuffle_;
  std::vector<int64_t> listed_;    // the order, for a shuffled N <= kListedOrderMax
  uint64_t key_ = 0;               // the Feistel rounds' Philox key, for a larger N
  int half_bits_ = 1;
};

}  // namespace tg::data
