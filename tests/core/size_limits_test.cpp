// Sizes that do not fit: shapes whose element count or byte size overflows int64, views that
// reach outside their storage, and requests for more memory than there is. Each is a tg::Error
// naming the op, the shape or the bytes and the limit, raised before any memory is touched.
#include <cstdint>
#include <limits>

#include "test_util.h"

using namespace tg;
using namespace tg::test;

namespace {
constexpr int64_t k2to62 = int64_t{1} << 62;
}  // namespace

TEST_CASE("size limits: a shape whose element count or byte size overflows int64 is an error") {
  // 2^62 x 4 elements wrapped to numel 0 and a 0-byte buffer, which sum then read past.
  CHECK_THROWS_WITH_AS(zeros({k2to62, 4}), doctest::Contains("zeros: shape (4611686018427387904,4) of 4-byte elements "
                                                             "needs more than 9223372036854775807 bytes"),
                       Error);
  CHECK_THROWS_WITH_AS(empty({k2to62 / 2, 2}), doctest::Contains("empty: shape (2305843009213693952,2)"), Error);
  CHECK_THROWS_WITH_AS(ones({k2to62 / 4, 2}, kF64), doctest::Contains("ones: shape"), Error);
  CHECK_THROWS_WITH_AS(randn({k2to62, 4}), doctest::Contains("randn: shape"), Error);
  CHECK_THROWS_WITH_AS(zeros({0, k2to62, 4}), doctest::Contains("zeros: shape (0,4611686018427387904,4)"), Error);
  CHECK_THROWS_WITH_AS(zeros(Shape(17, 1)), doctest::Contains("zeros: shape (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1) "
                                                             "has 17 dims, at most 16"),
                       Error);
  CHECK_THROWS_WITH_AS(numel({k2to62, 4}), doctest::Contains("numel: the sizes of shape (4611686018427387904,4)"),
                       Error);
  CHECK(zeros({0, k2to62 / 4}).numel() == 0);  // a zero size with sizes that fit: an empty tensor
}

TEST_CASE("size limits: a view may not overflow either, nor have more than 16 dims") {
  CHECK_THROWS_WITH_AS(expand(ones({1, 1}), {int64_t{1} << 40, int64_t{1} << 40}),
                       doctest::Contains("expand: shape (1099511627776,1099511627776)"), Error);
  CHECK_THROWS_WITH_AS(reshape(ones({8}), {k2to62, 4, -1}),
                       doctest::Contains("reshape: the sizes of (4611686018427387904,4,-1) multiply past"), Error);
  Tensor t = ones({1});
  for (int i = 0; i < 15; ++i) t = unsqueeze(t, 0);
  CHECK(t.dim() == 16);
  CHECK_THROWS_WITH_AS(unsqueeze(t, 0), doctest::Contains("has 17 dims, at most 16"), Error);
}

TEST_CASE("size limits: make_view checks that the view lies inside its storage") {
  Tensor base = arange(6, kF32);  // 0..5
  CHECK(make_view(base, {2, 3}, {3, 1}, 0).to_vector<float>() == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(make_view(base, {3}, {-2}, 5).to_vector<float>() == std::vector<float>{5, 3, 1});  // negative stride
  CHECK(make_view(base, {4, 2}, {0, 5}, 0).to_vector<float>() == std::vector<float>{0, 5, 0, 5, 0, 5, 0, 5});
  CHECK(make_view(base, {0, 9}, {100, 100}, 100).numel() == 0);  // reaches nothing

  CHECK_THROWS_WITH_AS(make_view(base, {2, 3}, {3, 1}, 1),
                       doctest::Contains("make_view: the view of shape (2,3), strides (3,1) and offset 1 reaches "
                                         "elements 1..6, outside the storage of 6 elements (0..5)"),
                       Error);
  CHECK_THROWS_WITH_AS(make_view(base, {3}, {-2}, 3), doctest::Contains("reaches elements -1..3"), Error);
  CHECK_THROWS_WITH_AS(make_view(base, {1}, {1}, -1), doctest::Contains("offset -1 reaches elements -1..-1"), Error);
  CHECK_THROWS_WITH_AS(make_view(base, {3}, {k2to62}, 0), doctest::Contains("reaches elements beyond int64's range"),
                       Error);
  CHECK_THROWS_WITH_AS(make_view(base, {2, 3}, {1}, 0), doctest::Contains("make_view: 1 strides (1,) for the 2 dims"),
                       Error);
  // A view into the middle of a float64 storage counts elements of its own dtype.
  Tensor wide = zeros({4}, kF64);
  CHECK_THROWS_WITH_AS(make_view(wide, {2}, {2}, 2), doctest::Contains("outside the storage of 4 elements"), Error);
}

TEST_CASE("size limits: a request for more memory than there is names the op and the bytes") {
  // 2^60 bytes: more than any machine's memory and swap; refused before the system is asked.
  CHECK_THROWS_WITH_AS(zeros({k2to62 / 16}), doctest::Contains("zeros: cannot allocate 1152921504606846976 bytes "
                                                               "(1.0 EiB) on cpu: more than this machine's memory"),
                       Error);
  CHECK_THROWS_WITH_AS(arange(0, 1e18), doctest::Contains("arange: cannot allocate 4000000000000000000 bytes"), Error);
  CHECK_THROWS_WITH_AS(tensor({1, 2}, {k2to62 / 16}), doctest::Contains("tensor: 2 values do not fill"), Error);
}

TEST_CASE("size limits: arange refuses non-finite arguments and counts past int64") {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH_AS(arange(0, nan), doctest::Contains("arange: start=0 end=nan step=1: each must be finite"), Error);
  CHECK_THROWS_WITH_AS(arange(-inf, 0), doctest::Contains("start=-inf"), Error);
  CHECK_THROWS_WITH_AS(arange(0, 1, nan), doctest::Contains("step=nan"), Error);
  CHECK_THROWS_WITH_AS(arange(0, 1, inf), doctest::Contains("step=inf"), Error);
  CHECK_THROWS_WITH_AS(arange(0, 1, 0), doctest::Contains("step nonzero"), Error);
  CHECK_THROWS_WITH_AS(arange(0, 1e300), doctest::Contains("elements, more than int64 holds"), Error);
  CHECK_THROWS_WITH_AS(arange(-1e308, 1e308, 1e-300), doctest::Contains("more than int64 holds"), Error);
  CHECK(arange(0, 1, 0.25).to_vector<float>() == std::vector<float>{0, 0.25f, 0.5f, 0.75f});
  CHECK(arange(5, 0).numel() == 0);
}
