// The data-moving kernels of core/copy.h: copy_, add_into_, fill_, all_finite and the copies.
#include <cmath>

#include "test_util.h"

using namespace tg;
using namespace tg::test;

// transposed_view (ops/matmul/matmul.h): the transpose as a view, no op on the tape.

TEST_CASE("copy_: across dtypes") {
  Tensor f = tensor({-1.5, 0, 0.25, 2.75});
  Tensor d = empty({4}, kF64);
  copy_(d, f);
  CHECK(d.to_vector<double>() == std::vector<double>{-1.5, 0, 0.25, 2.75});
  Tensor i = empty({4}, kI64);
  copy_(i, f);  // truncates toward zero, like a C++ cast
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{-1, 0, 0, 2});
  Tensor b = empty({4}, kBool);
  copy_(b, f);  // nonzero is true
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, false, true, true});
  Tensor back = empty({4});
  copy_(back, b);
  CHECK(back.to_vector<float>() == std::vector<float>{1, 0, 1, 1});
  copy_(back, tensor_i64({7, -8, 9, 10}));
  CHECK(back.to_vector<float>() == std::vector<float>{7, -8, 9, 10});
  CHECK(to_dtype_copy(f, kF64).to_vector<double>() == std::vector<double>{-1.5, 0, 0.25, 2.75});
}

TEST_CASE("copy_: from and into non-contiguous and expanded views") {
  Tensor a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  Tensor dst = empty({3, 2}, kF64);
  copy_(dst, transposed_view(a));
  CHECK(dst.to_vector<double>() == std::vector<double>{1, 4, 2, 5, 3, 6});

  Tensor into = zeros({2, 3}, kF64);
  copy_(transposed_view(into), dst);  // writing through a transposed_view view puts a back
  CHECK(into.to_vector<double>() == a.to_vector<double>());

  Tensor row = tensor({10, 20, 30}, {1, 3}, kF64);
  Tensor expanded = make_view(row, {2, 3}, {0, 1}, 0);
  copy_(into, expanded);
  CHECK(into.to_vector<double>() == std::vector<double>{10, 20, 30, 10, 20, 30});
  Tensor c = contiguous_copy(expanded);
  CHECK(c.is_contiguous());
  CHECK(c.storage() != row.storage());
  CHECK(c.to_vector<double>() == into.to_vector<double>());

  // Above the parallel grain (2^15 elements) the loop is split across threads.
  Tensor big = rand({300, 200}, kF64);
  Tensor big_t = contiguous_copy(transposed_view(big));
  std::vector<double> v = big.to_vector<double>(), vt = big_t.to_vector<double>();
  bool same = true;
  for (int64_t r = 0; r < 300; ++r)
    for (int64_t col = 0; col < 200; ++col) same = same && vt[col * 300 + r] == v[r * 200 + col];
  CHECK(same);
}

TEST_CASE("copy_: shape mismatch is an error, to_device_copy on the same device is a no-op") {
  CHECK_THROWS_WITH_AS(copy_(zeros({2, 3}), zeros({3, 2})), "copy: shapes differ: dst (2,3) vs src (3,2)", Error);
  CHECK_THROWS_WITH_AS(copy_(zeros({3}), zeros({1})), "copy: shapes differ: dst (3,) vs src (1,)", Error);
  Tensor t = zeros({2});
  CHECK(to_device_copy(t, kCPU).id() == t.id());
}

TEST_CASE("add_into_: accumulates from any layout") {
  Tensor dst = ones({2, 3}, kF64);
  add_into_(dst, tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64));
  CHECK(dst.to_vector<double>() == std::vector<double>{2, 3, 4, 5, 6, 7});
  add_into_(dst, make_view(tensor({10, 20, 30}, {3}, kF64), {2, 3}, {0, 1}, 0));
  CHECK(dst.to_vector<double>() == std::vector<double>{12, 23, 34, 15, 26, 37});
  Tensor sq = zeros({2, 2});
  add_into_(transposed_view(sq), tensor({1, 2, 3, 4}, {2, 2}));
  CHECK(sq.to_vector<float>() == std::vector<float>{1, 3, 2, 4});

  CHECK_THROWS_WITH_AS(add_into_(zeros({2}), zeros({3})), "add_into: shapes differ: dst (2,) vs src (3,)", Error);
  CHECK_THROWS_WITH_AS(add_into_(zeros({2}), zeros({2}, kF64)), doctest::Contains("add_into: dtypes differ"),
                       Error);
  CHECK_THROWS_WITH_AS(add_into_(zeros({2}, kI64), zeros({2}, kI64)),
                       "add_into: expected float32 or float64, got int64", Error);
}

TEST_CASE("fill_: fills exactly the view, any dtype") {
  Tensor base = zeros({3, 3});
  fill_(make_view(base, {3}, {4}, 0), 2);  // the diagonal
  CHECK(base.to_vector<float>() == std::vector<float>{2, 0, 0, 0, 2, 0, 0, 0, 2});
  Tensor i = zeros({2}, kI64);
  fill_(i, 5);
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{5, 5});
  Tensor b = zeros({2}, kBool);
  fill_(b, 1);
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, true});
  Tensor e = zeros({0, 4});
  fill_(e, 1);  // nothing to do, and no crash on the zero-size dim
  CHECK(e.numel() == 0);
}

TEST_CASE("all_finite") {
  CHECK(all_finite(tensor({1, -2, 3e38})));
  CHECK_FALSE(all_finite(tensor({1, NAN})));
  CHECK_FALSE(all_finite(tensor({INFINITY}, {}, kF64)));
  CHECK_FALSE(all_finite(tensor({-INFINITY, 0})));
  CHECK(all_finite(arange(4)));
  CHECK(all_finite(zeros({0})));
  // Only the viewed elements count: a NaN outside the view is not seen.
  Tensor base = tensor({1, NAN, 3, NAN}, {2, 2});
  CHECK(all_finite(make_view(base, {2}, {2}, 0)));
  CHECK_FALSE(all_finite(make_view(base, {2}, {2}, 1)));
  // A NaN at the very end of a tensor big enough for the parallel loop.
  Tensor big = zeros({100000}, kF64);
  fill_(make_view(big, {1}, {1}, 99999), NAN);
  CHECK_FALSE(all_finite(big));
}

TEST_CASE("in-place writes bump the storage version") {
  Tensor t = zeros({2});
  Tensor view = make_view(t, {1}, {1}, 1);
  const uint64_t v0 = t.storage()->version();
  fill_(view, 1);
  CHECK(t.storage()->version() == v0 + 1);
  copy_(t, ones({2}));
  CHECK(t.storage()->version() == v0 + 2);
  add_into_(t, ones({2}));
  CHECK(t.storage()->version() == v0 + 3);
}
