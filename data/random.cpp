#include "data/random.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::data {

uint64_t random_below(Generator& gen, uint64_t n) {
  if (n == 0) throw Error("random_below", "n must be at least 1");
  PhiloxBlock w = philox(gen.seed(), gen.reserve(1, 1));
  // 64 random bits mod n: the bias, at most n / 2^64, is far below anything a test can see.
  return ((uint64_t{w[0]} << 32) | w[1]) % n;
}

bool random_chance(Generator& gen, double p) {
  return uniform_from_bits(philox(gen.seed(), gen.reserve(1, 1))[0]) <= p;
}

std::vector<int64_t> random_permutation(int64_t n, Generator& gen) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  for (int64_t i = n - 1; i > 0; --i)
    std::swap(order[i], order[random_below(gen, static_cast<uint64_t>(i) + 1)]);
  return order;
}

std::vector<bool> choose_validation(int64_t n, double val_fraction, uint64_t seed) {
  if (!(val_fraction >= 0 && val_fraction < 1))
    throw Error("split", fmt::format("val_fraction must be in [0, 1), got {}", val_fraction));
  Generator gen(seed);
  std::vector<int64_t> order = random_permutation(n, gen);
  auto n_val = static_cast<int64_t>(std::llround(static_cast<double>(n) * val_fraction));
  std::vector<bool> is_val(static_cast<size_t>(n), false);
  for (int64_t i = 0; i < n_val; ++i) is_val[order[i]] = true;
  return is_val;
}

}  // namespace tg::data
