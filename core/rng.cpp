#include "core/rng.h"

#include <cmath>
#include <numbers>

namespace tg {

double normal_at(uint64_t seed, uint64_t offset, uint64_t i) {
  PhiloxBlock w = philox(seed, offset + i / 2);
  int k = static_cast<int>(i % 2) * 2;
  double radius = std::sqrt(-2.0 * std::log(uniform_from_bits(w[k])));
  return radius * std::cos(2.0 * std::numbers::pi * uniform_from_bits(w[k + 1]));
}

Generator& default_generator() {
  static Generator gen(0);
  return gen;
}

void manual_seed(uint64_t seed) { default_generator().set_state(seed, 0); }

}  // namespace tg
