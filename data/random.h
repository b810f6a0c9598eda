#pragma once
// Random draws for the data layer, all from a Philox tg::Generator (core/rng.h), so a seed
// gives the same data on every machine. Each draw uses one Philox counter.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/rng.h"

namespace tg::data {

// A dataset whose example i is drawn afresh from Generator(seed) at offset i << kCountersPerExample
// (the synthetic tasks, random LM windows): room for any example's draws, and nothing stored.
inline constexpr int kCountersPerExample = 20;

// Uniform integer in [0, n), n >= 1.
uint64_t random_below(Generator& gen, uint64_t n);
// True with probability p.
bool random_chance(Generator& gen, double p);
// A uniformly random order of 0..n-1 (Fisher-Yates).
std::vector<int64_t> random_permutation(int64_t n, Generator& gen);

// Which of n items go to validation: exactly round(n * val_fraction) of them, chosen at
// random from `seed`. val_fraction in [0, 1).
std::vector<bool> choose_validation(int64_t n, double val_fraction, uint64_t seed);

// Splits items into (train, val) by choose_validation; each part keeps the items' order.
template <class T>
void split_by_fraction(const std::vector<T>& items, double val_fraction, uint64_t seed, std::vector<T>& train,
                       std::vector<T>& val) {
  std::vector<bool> is_val = choose_validation(static_cast<int64_t>(items.size()), val_fraction, seed);
  train.clear();
  val.clear();
  for (size_t i = 0; i < items.size(); ++i) (is_val[i] ? val : train).push_back(items[i]);
}

}  // namespace tg::data
