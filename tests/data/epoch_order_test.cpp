// EpochOrder: the order an epoch visits the examples in, listed for small datasets (the order
// random_permutation gives) and computed per position for large ones (a permutation all the same).
#include <doctest/doctest.h>

#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "data/epoch_order.h"
#include "data/random.h"

using namespace tg;
using data::EpochOrder;

namespace {

std::vector<int64_t> first_positions(const EpochOrder& order, int64_t count) {
  std::vector<int64_t> visits;
  for (int64_t i = 0; i < count; ++i) visits.push_back(order[i]);
  return visits;
}

}  // namespace

TEST_CASE("EpochOrder: up to kListedOrderMax examples, random_permutation from the seed at the epoch's offset") {
  for (const int64_t n : {int64_t{1}, int64_t{7}, int64_t{1000}}) {
    Generator gen;
    gen.set_state(5, uint64_t{3} << 32);
    CHECK(first_positions(EpochOrder(n, true, 5, 3), n) == data::random_permutation(n, gen));
    CHECK(first_positions(EpochOrder(n, false, 5, 3), n) == first_positions(EpochOrder(n, false, 9, 1), n));
    CHECK(EpochOrder(n, false, 5, 3)[n - 1] == n - 1);
  }
}

TEST_CASE("EpochOrder: beyond kListedOrderMax, every example exactly once, a new order per epoch and seed") {
  const int64_t n = data::kListedOrderMax + 12345;
  const EpochOrder order(n, true, 0, 2);
  std::vector<bool> seen(static_cast<size_t>(n), false);
  int64_t outside = 0, repeats = 0, moved = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t example = order[i];
    if (example < 0 || example >= n) {
      ++outside;
      continue;
    }
    repeats += seen[static_cast<size_t>(example)];
    seen[static_cast<size_t>(example)] = true;
    moved += example != i;
  }
  CHECK(outside == 0);
  CHECK(repeats == 0);  // n positions in [0, n), no example twice: a permutation
  CHECK(moved > n * 9 / 10);
  CHECK(first_positions(order, 100) == first_positions(EpochOrder(n, true, 0, 2), 100));  // the same again
  CHECK(first_positions(order, 100) != first_positions(EpochOrder(n, true, 0, 3), 100));  // another epoch
  CHECK(first_positions(order, 100) != first_positions(EpochOrder(n, true, 1, 2), 100));  // another seed
}

TEST_CASE("EpochOrder: a huge dataset's order holds nothing, and positions outside it are errors") {
  const int64_t n = int64_t{1} << 40;  // listed, 8 TiB
  const EpochOrder order(n, true, 7, 0);
  for (const int64_t i : {int64_t{0}, n / 2, n - 1}) CHECK(order[i] < n);
  CHECK_THROWS_WITH_AS(order[n], doctest::Contains("position 1099511627776 is outside an epoch of"), Error);
  CHECK_THROWS_WITH_AS(order[-1], doctest::Contains("position -1 is outside"), Error);
  CHECK_THROWS_WITH_AS(EpochOrder(5, true, 0, -1), doctest::Contains("epoch must be >= 0"), Error);
}
