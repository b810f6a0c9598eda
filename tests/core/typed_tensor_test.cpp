// Tensors from typed spans, raw buffers and masks (core/typed_tensor.h), and the shape rule
// every value constructor follows: no shape is 1-D, {} is 0-d.
#include <cstdint>
#include <vector>

#include "test_util.h"

using namespace tg;
using namespace tg::test;

TEST_CASE("tensor(values, shape): no shape is 1-D, {} is 0-d and takes exactly one value") {
  CHECK(tensor({1, 2, 3}).shape() == Shape{3});
  CHECK(tensor_i64({1, 2, 3}).shape() == Shape{3});
  CHECK(tensor_bool({true, false}).shape() == Shape{2});
  Tensor s = tensor({2.5}, {}, kF64);
  CHECK(s.shape() == Shape{});
  CHECK(s.item() == 2.5);
  CHECK(tensor_i64({7}, {}).shape() == Shape{});
  CHECK(tensor_bool({true}, {}).shape() == Shape{});
  CHECK(tensor(std::vector<float>{1.5f}, {}).shape() == Shape{});
  CHECK_THROWS_WITH_AS(tensor({1, 2, 3}, {}, kF64),
                       "tensor: 3 values do not fill shape () (1 elements); leave the shape out for 1-D", Error);
  CHECK_THROWS_WITH_AS(tensor_i64({1, 2}, {}), doctest::Contains("tensor_i64: 2 values do not fill shape ()"), Error);
  CHECK_THROWS_WITH_AS(tensor_bool({true, false}, {}), doctest::Contains("tensor_bool: 2 values do not fill shape ()"),
                       Error);
  CHECK_THROWS_WITH_AS(tensor(std::vector<float>{1, 2}, {}),
                       "tensor: 2 values do not fill shape () (1 elements); {} is the 0-d shape: one value", Error);
}

TEST_CASE("tensor(std::span<const T>, shape): the values' own dtype, copied") {
  std::vector<float> f = {1.5f, -2, 3.25f, 4, 5, 6};
  Tensor tf = tensor(f, {2, 3});
  CHECK(tf.dtype() == kF32);
  CHECK(tf.shape() == Shape{2, 3});
  f[0] = 100;  // the tensor holds a copy
  CHECK(tf.to_vector<float>() == std::vector<float>{1.5f, -2, 3.25f, 4, 5, 6});

  const double d[] = {0.1, 0.2};
  Tensor td = tensor(std::span<const double>(d), {2});
  CHECK(td.dtype() == kF64);
  CHECK(td.to_vector<double>() == std::vector<double>{0.1, 0.2});  // not through float

  const std::vector<int64_t> ids = {int64_t{1} << 60, -3};  // beyond double's 53 bits
  Tensor ti = tensor(ids, {2, 1});
  CHECK(ti.dtype() == kI64);
  CHECK(ti.to_vector<int64_t>() == ids);

  const bool b[] = {true, false, true};
  Tensor tb = tensor(std::span<const bool>(b), {3});
  CHECK(tb.dtype() == kBool);
  CHECK(tb.to_vector<bool>() == std::vector<bool>{true, false, true});

  CHECK(tensor(std::span<const float>(), {0, 4}).shape() == Shape{0, 4});
  CHECK_THROWS_WITH_AS(tensor(f, {4}), "tensor: 6 values do not fill shape (4,) (4 elements)", Error);
}

TEST_CASE("from_blob: copies numel elements of the dtype from a raw buffer") {
  std::vector<double> buffer = {1, 2, 3, 4, 5, 6};
  Tensor t = from_blob(buffer.data(), {3, 2}, kF64);
  buffer.assign(6, 0);  // freed or reused at once: the tensor keeps its copy
  CHECK(t.shape() == Shape{3, 2});
  CHECK(t.to_vector<double>() == std::vector<double>{1, 2, 3, 4, 5, 6});

  const int64_t ids[] = {5, -1, 9};
  CHECK(from_blob(ids, {3}, kI64).to_vector<int64_t>() == std::vector<int64_t>{5, -1, 9});
  const float one = 0.5f;
  Tensor scalar_t = from_blob(&one, {}, kF32);
  CHECK(scalar_t.shape() == Shape{});
  CHECK(scalar_t.item() == 0.5);
  const uint8_t bits[] = {1, 0, 1};
  CHECK(from_blob(bits, {3}, kBool).to_vector<bool>() == std::vector<bool>{true, false, true});

  CHECK(from_blob(nullptr, {0}, kF32).numel() == 0);
  CHECK_THROWS_WITH_AS(from_blob(nullptr, {2}, kF32), "from_blob: data is null but shape (2,) has 2 elements", Error);
  const uint8_t not_bool[] = {1, 2};
  CHECK_THROWS_WITH_AS(from_blob(not_bool, {2}, kBool), doctest::Contains("from_blob: a bool buffer holds only bytes "
                                                                          "0 and 1, but byte 1 is 2"), Error);
  CHECK_THROWS_WITH_AS(from_blob(ids, {-1}, kI64), doctest::Contains("from_blob:"), Error);
}

TEST_CASE("tensor_bool: from a span of bool or of bytes (nonzero = true)") {
  const std::vector<uint8_t> bytes = {0, 1, 255, 0};
  Tensor m = tensor_bool(bytes, {2, 2});
  CHECK(m.dtype() == kBool);
  CHECK(m.to_vector<bool>() == std::vector<bool>{false, true, true, false});
  const bool flags[] = {false, true};
  CHECK(tensor_bool(std::span<const bool>(flags), {2}).to_vector<bool>() == std::vector<bool>{false, true});
  CHECK(tensor_bool({true, false, true, true}, {2, 2}).shape() == Shape{2, 2});
  CHECK_THROWS_WITH_AS(tensor_bool(bytes, {3}), doctest::Contains("tensor_bool: 4 values do not fill shape (3,)"),
                       Error);
}

TEST_CASE("typed constructors on the GPU") {
  if (!gpu_available_or_skip()) return;
  const std::vector<float> f = {1, 2, 3};
  Tensor t = tensor(f, {3}, Device::cuda());
  CHECK(t.is_cuda());
  CHECK(to_device_copy(t, kCPU).to_vector<float>() == f);
  const uint8_t bytes[] = {0, 7};
  Tensor m = tensor_bool(std::span<const uint8_t>(bytes), {2}, Device::cuda());
  CHECK(to_device_copy(m, kCPU).to_vector<bool>() == std::vector<bool>{false, true});
}
