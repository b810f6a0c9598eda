// Printing tensors (core/format.h): PyTorch-like text, checked character for character.
#include <cmath>

#include "test_util.h"

using namespace tg;

TEST_CASE("format: a 2x3 float tensor") {
  CHECK(fmt::format("{}", tensor({1, 2, 3, 4, 5, 6}, {2, 3})) ==
        "tensor([[1., 2., 3.],\n"
        "        [4., 5., 6.]], dtype=float32)");
  CHECK(fmt::format("{}", tensor({1.5, -2.25, 3, 4, 5, 6}, {2, 3})) ==
        "tensor([[ 1.5000, -2.2500,  3.0000],\n"
        "        [ 4.0000,  5.0000,  6.0000]], dtype=float32)");
}

TEST_CASE("format: 3-D, requires_grad, non-contiguous") {
  CHECK(fmt::format("{}", tensor({1, 2, 3, 4, 5, 6, 7, 8}, {2, 2, 2}, kF64).requires_grad_()) ==
        "tensor([[[1., 2.],\n"
        "         [3., 4.]],\n"
        "\n"
        "        [[5., 6.],\n"
        "         [7., 8.]]], dtype=float64, requires_grad=true)");
  Tensor t = make_view(tensor({1, 2, 3, 4, 5, 6}, {2, 3}), {3, 2}, {1, 3}, 0);  // transpose
  CHECK(fmt::format("{}", t) ==
        "tensor([[1., 4.],\n"
        "        [2., 5.],\n"
        "        [3., 6.]], dtype=float32)");
}

TEST_CASE("format: int64, bool, 0-d, empty, undefined") {
  CHECK(fmt::format("{}", tensor_i64({-3, 10, 200})) == "tensor([ -3,  10, 200], dtype=int64)");
  CHECK(fmt::format("{}", tensor_i64({9007199254740993})) == "tensor([9007199254740993], dtype=int64)");
  CHECK(fmt::format("{}", tensor_bool({true, false})) == "tensor([ True, False], dtype=bool)");
  CHECK(fmt::format("{}", scalar(3.5)) == "tensor(3.5000, shape=(), dtype=float32)");
  CHECK(fmt::format("{}", zeros({0})) == "tensor([], dtype=float32)");
  CHECK(fmt::format("{}", Tensor()) == "tensor(undefined)");
}

TEST_CASE("format: NaN, inf and scientific notation") {
  CHECK(fmt::format("{}", tensor({1.5, NAN, INFINITY, -INFINITY})) ==
        "tensor([1.5000,    nan,    inf,   -inf], dtype=float32)");
  CHECK(fmt::format("{}", tensor({1e-5, 1}, {2}, kF64)) == "tensor([1.0000e-05, 1.0000e+00], dtype=float64)");
  CHECK(fmt::format("{}", tensor({1e9, 1}, {2}, kF64)) == "tensor([1.0000e+09, 1.0000e+00], dtype=float64)");
}

TEST_CASE("format: large tensors are summarised with ...") {
  CHECK(fmt::format("{}", arange(2000)) ==
        "tensor([   0,    1,    2, ..., 1997, 1998, 1999], shape=(2000,), dtype=int64)");
  CHECK(fmt::format("{}", arange(0, 1600, 1).requires_grad_()) ==
        "tensor([   0.,    1.,    2., ..., 1597., 1598., 1599.], shape=(1600,), dtype=float32, "
        "requires_grad=true)");
  CHECK(fmt::format("{}", zeros({40, 40})) ==
        "tensor([[0., 0., 0., ..., 0., 0., 0.],\n"
        "        [0., 0., 0., ..., 0., 0., 0.],\n"
        "        [0., 0., 0., ..., 0., 0., 0.],\n"
        "        ...,\n"
        "        [0., 0., 0., ..., 0., 0., 0.],\n"
        "        [0., 0., 0., ..., 0., 0., 0.],\n"
        "        [0., 0., 0., ..., 0., 0., 0.]], shape=(40,40), dtype=float32)");
  // Exactly at the threshold (1000 elements) nothing is hidden.
  CHECK(fmt::format("{}", arange(1000)).find("...") == std::string::npos);
}
