// Tensor basics: layout, factories, random numbers, values, autograd flags, printing.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("tensor: dtype, shape, strides, offset") {
  Tensor t = zeros({2, 3, 4}, kF64);
  CHECK(t.dtype() == kF64);
  CHECK(t.shape() == Shape{2, 3, 4});
  CHECK(t.strides() == Shape{12, 4, 1});
  CHECK(t.offset() == 0);
  CHECK(t.dim() == 3);
  CHECK(t.numel() == 24);
  CHECK(t.size(-1) == 4);
  CHECK(t.is_cpu());
  CHECK(t.describe() == "(2,3,4) float64");
  CHECK(t.set_name("x").describe() == "x (2,3,4) float64");
  CHECK_THROWS_WITH_AS(t.size(3), doctest::Contains("size: dim 3 is out of range"), Error);

  Tensor row = make_view(t, {4}, {1}, 8);  // t[0, 2, :]
  CHECK(row.offset() == 8);
  CHECK(row.storage() == t.storage());
  CHECK(row.id() != t.id());
  fill_(row, 5);
  CHECK(t.to_vector<double>()[8] == 5);
  CHECK(t.to_vector<double>()[7] == 0);
}

TEST_CASE("tensor: is_contiguous") {
  Tensor base = zeros({2, 3});
  CHECK(base.is_contiguous());
  CHECK_FALSE(make_view(base, {3, 2}, {1, 3}, 0).is_contiguous());  // transposed
  CHECK_FALSE(make_view(base, {2, 3}, {0, 1}, 0).is_contiguous());  // expanded
  CHECK(make_view(base, {2, 1, 3}, {3, 99, 1}, 0).is_contiguous());  // size-1 dims: any stride
  CHECK(make_view(base, {1}, {0}, 2).is_contiguous());
  CHECK_FALSE(make_view(base, {2, 2}, {3, 1}, 0).is_contiguous());  // a column slice
  CHECK(scalar(1).is_contiguous());
  CHECK(zeros({0, 3}).is_contiguous());
}

TEST_CASE("tensor: factories") {
  require_values(zeros({2, 2}), {0, 0, 0, 0});
  require_values(ones({3}, kF64), {1, 1, 1});
  require_values(full({2}, -2.5), {-2.5, -2.5});
  CHECK(zeros({2}, kI64).dtype() == kI64);

  Tensor a = arange(5);
  CHECK(a.dtype() == kI64);
  CHECK(a.to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(arange(0, 1, 0.25, kF64).to_vector<double>() == std::vector<double>{0, 0.25, 0.5, 0.75});
  CHECK(arange(5, 0, -2).to_vector<float>() == std::vector<float>{5, 3, 1});
  CHECK(arange(3, 1).shape() == Shape{0});
  CHECK_THROWS_WITH_AS(arange(0, 1, 0), doctest::Contains("arange: start=0 end=1 step=0: each must be finite"), Error);

  Tensor t = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  CHECK(t.shape() == Shape{2, 3});
  CHECK(t.to_vector<double>() == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(tensor({7, 8}).shape() == Shape{2});
  CHECK_THROWS_WITH_AS(tensor({1, 2, 3, 4, 5}, {2, 3}), "tensor: 5 values do not fill shape (2,3) (6 elements)",
                       Error);

  Tensor i = tensor_i64({-3, 9007199254740993}, {2, 1});
  CHECK(i.dtype() == kI64);
  CHECK(i.shape() == Shape{2, 1});
  CHECK(i.to_vector<int64_t>() == std::vector<int64_t>{-3, 9007199254740993});  // exact beyond 2^53
  CHECK_THROWS_AS(tensor_i64({1, 2}, {3}), Error);

  Tensor b = tensor_bool({true, false, true});
  CHECK(b.dtype() == kBool);
  CHECK(b.to_vector<bool>() == std::vector<bool>{true, false, true});
  CHECK_THROWS_AS(tensor_bool({true}, {2}), Error);

  Tensor s = scalar(3.5, kF64);
  CHECK(s.shape() == Shape{});
  CHECK(s.numel() == 1);
  CHECK(s.item() == 3.5);

  CHECK_THROWS_WITH_AS(empty({2, -1}), "empty: negative size -1 in shape (2,-1)", Error);
  CHECK_THROWS_WITH_AS(empty(Shape(17, 1)), doctest::Contains("has 17 dims, at most 16 are supported"), Error);
}

TEST_CASE("tensor: *_like factories keep shape, dtype and device, not layout") {
  Tensor base = arange(0, 6, 1, kF64);
  Tensor t = make_view(base, {3, 2}, {1, 3}, 0);  // non-contiguous
  for (Tensor like : {zeros_like(t), ones_like(t), full_like(t, 4), empty_like(t)}) {
    CHECK(like.shape() == Shape{3, 2});
    CHECK(like.dtype() == kF64);
    CHECK(like.device() == kCPU);
    CHECK(like.is_contiguous());
    CHECK(like.storage() != base.storage());
  }
  require_values(zeros_like(t), {0, 0, 0, 0, 0, 0});
  require_values(ones_like(t), {1, 1, 1, 1, 1, 1});
  require_values(full_like(t, 4), {4, 4, 4, 4, 4, 4});
  CHECK(zeros_like(arange(2)).dtype() == kI64);
}

TEST_CASE("tensor: empty_in_order_of lays the dims out in the order of like's strides") {
  // like (B,H,T,d) = a (B,T,H,d) contiguous tensor with dims 1 and 2 swapped
  const Tensor like = make_view(zeros({2, 5, 3, 4}, kF64), {2, 3, 5, 4}, {60, 4, 12, 1}, 0);
  const Tensor t = empty_in_order_of({2, 3, 5, 7}, like);  // the last dim may differ
  CHECK(t.shape() == Shape{2, 3, 5, 7});
  CHECK(t.strides() == Shape{105, 7, 21, 1});
  CHECK(t.dtype() == kF64);
  CHECK(t.storage()->nbytes() == 2 * 3 * 5 * 7 * 8);
  CHECK(empty_in_order_of({4, 2}, zeros({4, 2})).is_contiguous());
  CHECK(empty_in_order_of({4, 2}, make_view(zeros({2, 4}), {4, 2}, {1, 4}, 0)).strides() == Shape{1, 4});
  CHECK_THROWS_WITH_AS(empty_in_order_of({4}, zeros({4, 2})),
                       "empty_in_order_of: shape (4,) must have the rank of like (4,2)", Error);
}

TEST_CASE("tensor: rand and randn are deterministic per seed") {
  Generator g1(42), g2(42), g3(43);
  std::vector<float> a = randn({64}, kF32, kCPU, g1).to_vector<float>();
  CHECK(a == randn({64}, kF32, kCPU, g2).to_vector<float>());
  CHECK(a != randn({64}, kF32, kCPU, g3).to_vector<float>());
  CHECK(a != randn({64}, kF32, kCPU, g1).to_vector<float>());  // the generator moved on

  manual_seed(7);
  std::vector<double> u = rand({50}, kF64).to_vector<double>();
  manual_seed(7);
  CHECK(u == rand({50}, kF64).to_vector<double>());
  Generator g4(5);
  std::vector<double> r = rand({1000}, kF64, kCPU, g4, -2, 3).to_vector<double>();
  CHECK(*std::min_element(r.begin(), r.end()) >= -2);
  CHECK(*std::min_element(r.begin(), r.end()) < -1.9);
  CHECK(*std::max_element(r.begin(), r.end()) < 3);
  CHECK(*std::max_element(r.begin(), r.end()) > 2.9);
  CHECK_THROWS_WITH_AS(rand({2}, kI64), doctest::Contains("rand: argument 'dtype' must be float32 or float64"),
                       Error);
  CHECK_THROWS_AS(randn({2}, kBool), Error);
}

TEST_CASE("tensor: random draws do not depend on the number of OpenMP threads") {
  const int previous = omp_get_max_threads();
  auto draw = [](int threads) {
    omp_set_num_threads(threads);
    Generator g(9);
    // 100k elements: above the parallel grain, so two threads really split the work.
    std::vector<double> n = randn({100000}, kF64, kCPU, g).to_vector<double>();
    std::vector<double> u = rand({100000}, kF64, kCPU, g).to_vector<double>();
    n.insert(n.end(), u.begin(), u.end());
    return n;
  };
  std::vector<double> one = draw(1), two = draw(2);
  omp_set_num_threads(previous);
  CHECK(one == two);
}

TEST_CASE("tensor: randn has the requested mean and std") {
  Generator g(2024);
  const int64_t n = 100000;
  for (auto [mean, std] : {std::pair{0.0, 1.0}, std::pair{3.0, 0.5}}) {
    std::vector<double> v = randn({n}, kF64, kCPU, g, mean, std).to_vector<double>();
    double s = 0, ss = 0;
    for (double x : v) s += x;
    const double m = s / n;
    for (double x : v) ss += (x - m) * (x - m);
    const double sd = std::sqrt(ss / (n - 1));
    // Standard errors: std/sqrt(n) = 0.0032*std for the mean, std/sqrt(2n) = 0.0022*std for the std.
    CHECK(std::abs(m - mean) < 5 * std / std::sqrt(n));
    CHECK(std::abs(sd - std) < 5 * std / std::sqrt(2.0 * n));
  }
}

TEST_CASE("tensor: item and to_vector") {
  CHECK(scalar(2.5).item() == 2.5);
  CHECK(tensor({4}, {1, 1}).item() == 4);
  CHECK(tensor_i64({-7}).item() == -7);
  CHECK(tensor_bool({true}).item() == 1);
  CHECK_THROWS_WITH_AS(zeros({2}).item(), "item: only one-element tensors convert to a number, got shape (2,)",
                       Error);

  Tensor base = tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = make_view(base, {3, 2}, {1, 3}, 0);  // the transpose
  CHECK(t.to_vector<float>() == std::vector<float>{1, 4, 2, 5, 3, 6});
  CHECK_THROWS_WITH_AS(t.to_vector<double>(), "data: requested float64 pointer of a float32 tensor", Error);
}

TEST_CASE("tensor: detach shares storage and has no history or grad") {
  Tensor x = ones({3}).requires_grad_();
  Tensor y = x + x;
  Tensor d = y.detach();
  CHECK(d.storage() == y.storage());
  CHECK(d.id() != y.id());
  CHECK_FALSE(d.requires_grad());
  CHECK(d.is_leaf());
  CHECK_FALSE(d.grad().defined());
  fill_(d, 7);
  require_values(y, {7, 7, 7});
}

TEST_CASE("tensor: requires_grad_ only on floating leaves") {
  CHECK(zeros({2}).requires_grad_().requires_grad());
  CHECK_FALSE(zeros({2}, kF64).requires_grad_().requires_grad_(false).requires_grad());
  CHECK_THROWS_WITH_AS(arange(3).requires_grad_(), doctest::Contains("only floating tensors can require grad"),
                       Error);
  CHECK_THROWS_AS(tensor_bool({true}).requires_grad_(), Error);
  Tensor x = ones({2}).requires_grad_();
  Tensor y = x + 1.0;
  CHECK_FALSE(y.is_leaf());
  CHECK_THROWS_WITH_AS(y.requires_grad_(), doctest::Contains("not a leaf"), Error);
  CHECK_FALSE(x.grad().defined());
}

TEST_CASE("tensor: an undefined tensor throws instead of crashing") {
  Tensor u;
  CHECK_FALSE(u.defined());
  CHECK(u.describe() == "undefined");
  CHECK_THROWS_WITH_AS(u.shape(), doctest::Contains("undefined tensor"), Error);
  CHECK_THROWS_AS(u.numel(), Error);
  CHECK_THROWS_AS(u.item(), Error);
  CHECK_THROWS_AS(u.to_vector<float>(), Error);
  CHECK_THROWS_AS(u.requires_grad_(), Error);
  CHECK_THROWS_AS(u.grad(), Error);
  CHECK_THROWS_AS(u.zero_grad(), Error);
  CHECK_THROWS_AS(u.detach(), Error);
  CHECK_THROWS_AS(u.set_name("u"), Error);
  CHECK_THROWS_AS(u.backward(), Error);
  CHECK_THROWS_WITH_AS(u + u, "add: argument 'a' is an undefined tensor", Error);
}
