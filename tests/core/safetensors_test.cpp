// Safetensors files: round trips, the exact bytes of a tiny file, atomic saves. The
// malformed-file cases are in safetensors_corrupt_test.cpp.
#include "core/io/safetensors.h"

#include <cstring>

#include "core/output_file_test_util.h"
#include "safetensors_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;
namespace fs = std::filesystem;

namespace {

// Requires same dtype, shape and values (compared exactly: the file stores raw bytes).
void require_same(const Tensor& actual, const Tensor& expected) {
  REQUIRE(actual.dtype() == expected.dtype());
  REQUIRE(actual.shape() == expected.shape());
  switch (expected.dtype()) {
    case DType::f32:
      CHECK(actual.to_vector<float>() == expected.to_vector<float>());
      break;
    case DType::f64:
      CHECK(actual.to_vector<double>() == expected.to_vector<double>());
      break;
    case DType::i64:
      CHECK(actual.to_vector<int64_t>() == expected.to_vector<int64_t>());
      break;
    case DType::b8:
      CHECK(actual.to_vector<bool>() == expected.to_vector<bool>());
      break;
  }
}

}  // namespace

TEST_CASE("safetensors: round trip of every dtype, 0-d, empty and non-contiguous tensors") {
  ScratchDir dir;
  fs::path path = dir.path / "model.safetensors";
  Tensor base = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF64);
  Tensor row = tensor({0.5, -1.25, 3}, {3}, kF32);
  NamedTensors given = {
      {"w", tensor({0.5, -1.25, 3e-8, 1e30}, {2, 2}, kF32)},
      {"transposed", make_view(base, {3, 2}, {1, 3}, 0)},  // [[1,4],[2,5],[3,6]]
      {"second_row", make_view(base, {3}, {1}, 3)},        // [4,5,6]: contiguous, offset 3
      {"broadcast", make_view(row, {2, 3}, {0, 1}, 0)},    // row repeated, stride 0
      {"ids", tensor_i64({-3, 0, int64_t{1} << 40}, {3, 1})},
      {"mask", tensor_bool({true, false, false, true}, {2, 2})},
      {"scalar_f64", scalar(-7.5, kF64)},
      {"scalar_i64", scalar(42, kI64)},
      {"scalar_bool", scalar(1, kBool)},
      {"empty_f32", zeros({0, 4})},
      {"empty_i64", zeros({2, 0}, kI64)},
      {"empty_bool", zeros({0}, kBool)},
      {"a.last", tensor({1e-300, -0.0}, {2}, kF64)},  // not in alphabetical order on purpose
  };
  given[0].second.requires_grad_();
  save_safetensors(path, given, {{"format", "pt"}, {"note", "h\xc3\xa9llo \"quoted\""}});

  SafetensorsFile file = load_safetensors(path);
  REQUIRE(file.tensors.size() == given.size());
  for (size_t i = 0; i < given.size(); ++i) {
    CAPTURE(given[i].first);
    CHECK(file.tensors[i].first == given[i].first);
    const Tensor& t = file.tensors[i].second;
    CHECK(t.is_cpu());
    CHECK(t.is_contiguous());
    CHECK_FALSE(t.requires_grad());
    require_same(t, given[i].second);
  }
  CHECK(file.tensors[1].second.to_vector<double>() == std::vector<double>{1, 4, 2, 5, 3, 6});
  CHECK(file.tensors[3].second.to_vector<float>() == std::vector<float>{0.5f, -1.25f, 3, 0.5f, -1.25f, 3});
  CHECK(file.metadata == SafetensorsMetadata{{"format", "pt"}, {"note", "h\xc3\xa9llo \"quoted\""}});
  CHECK(temporaries_in(dir.path).empty());
}

TEST_CASE("safetensors: no tensors and no metadata round trip, saving replaces an old file") {
  ScratchDir dir;
  fs::path path = dir.path / "empty.safetensors";
  save_safetensors(path, {{"old", tensor({1, 2})}}, {{"old", "yes"}});
  save_safetensors(path, {});
  // "{}" padded with six spaces to 8 bytes; no __metadata__ when there is none.
  CHECK(read_bytes(path) == std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
  SafetensorsFile file = load_safetensors(path);
  CHECK(file.tensors.empty());
  CHECK(file.metadata.empty());
}

TEST_CASE("safetensors: the bytes of a tiny file, computed by hand") {
  ScratchDir dir;
  fs::path path = dir.path / "tiny.safetensors";
  save_safetensors(path, {{"x", tensor({1, -2}, {2})}, {"m", scalar(1, kBool)}}, {{"fmt", "pt"}});

  // Tensors in the order given, each right after the one before: x = 2 x 4 bytes, m = 1 byte.
  // The metadata (sorted by key) holds each tensor's CRC-32, as Python's zlib.crc32 gives it:
  // zlib.crc32(bytes([0, 0, 0x80, 0x3f, 0, 0, 0, 0xc0])) = 0xc3872656, zlib.crc32(b"\x01") = 0xa505df1b.
  std::string header = R"({"__metadata__":{"fmt":"pt","tapegrad.crc32.m":"a505df1b","tapegrad.crc32.x":"c3872656"},)"
                       R"("x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                       R"("m":{"dtype":"BOOL","shape":[],"data_offsets":[8,9]}})";
  REQUIRE(header.size() == 195);  // + 5 spaces of padding = 200 = 0xc8, a multiple of 8
  std::string length("\xc8\0\0\0\0\0\0\0", 8);
  // 1.0f = 0x3f800000, -2.0f = 0xc0000000, little-endian; true = 0x01
  std::string data("\x00\x00\x80\x3f\x00\x00\x00\xc0\x01", 9);
  CHECK(read_bytes(path) == length + header + "     " + data);
  CHECK(load_safetensors(path).metadata == SafetensorsMetadata{{"fmt", "pt"}});  // the checksums are the reader's
}

TEST_CASE("safetensors: a file from another writer: padding, any key order, read in data order") {
  ScratchDir dir;
  fs::path path = dir.path / "other.safetensors";
  // b is listed first but lies last; the empty e shares offset 8 with b and comes before it.
  std::string header = R"({"b": {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]},)"
                       R"( "e": {"dtype": "F32", "shape": [0, 3], "data_offsets": [8, 8]},)"
                       R"( "a": {"dtype": "F64", "shape": [], "data_offsets": [0, 8]},)"
                       R"( "__metadata__": {"k": "v"}})";
  write_bytes(path, safetensors_bytes(header + "     ", raw_bytes(2.5) + raw_bytes(int64_t{-7})));

  SafetensorsFile file = load_safetensors(path);
  REQUIRE(file.tensors.size() == 3);
  CHECK(file.tensors[0].first == "a");
  CHECK(file.tensors[1].first == "e");
  CHECK(file.tensors[2].first == "b");
  require_same(file.tensors[0].second, scalar(2.5, kF64));
  require_same(file.tensors[1].second, zeros({0, 3}));
  require_same(file.tensors[2].second, tensor_i64({-7}, {1}));
  CHECK(file.metadata == SafetensorsMetadata{{"k", "v"}});
}

TEST_CASE("safetensors: saving rejects bad names and undefined tensors") {
  ScratchDir dir;
  fs::path path = dir.path / "bad.safetensors";
  CHECK_THROWS_WITH_AS(
      save_safetensors(path, {{"a", scalar(1)}, {"a", scalar(2)}}),
      doctest::Contains(("save_safetensors: " + path.string() + ": tensor name 'a' is given twice").c_str()),
      tg::Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"__metadata__", scalar(1)}}),
                       doctest::Contains("'__metadata__' is reserved"), tg::Error);
  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"u", Tensor()}}), doctest::Contains("tensor 'u' is undefined"),
                       tg::Error);
  CHECK_THROWS_WITH_AS(save_safetensors(dir.path / "no_such_dir" / "x.safetensors", {}),
                       doctest::Contains("cannot open its directory: No such file or directory"), tg::Error);
  CHECK(fs::is_empty(dir.path));
}

TEST_CASE("safetensors: a failed save leaves the old file as it was and no temporary file") {
  ScratchDir dir;
  fs::path path = dir.path / "model.safetensors";
  save_safetensors(path, {{"old", tensor({1, 2})}});
  std::string old_bytes = read_bytes(path);

  SUBCASE("bad arguments: nothing is written") {
    CHECK_THROWS_AS(save_safetensors(path, {{"new", tensor({3})}, {"new", tensor({4})}}), tg::Error);
  }
  SUBCASE("a write fails half way (the disk is 'full' past 4 KiB)") {
    FileSizeLimit limit(4096);
    CHECK_THROWS_WITH_AS(save_safetensors(path, {{"new", zeros({4096})}}),
                         doctest::Contains(("cannot write " + path.string() + ": File too large").c_str()), tg::Error);
  }
  CHECK(temporaries_in(dir.path).empty());
  CHECK(read_bytes(path) == old_bytes);
  CHECK(load_safetensors(path).tensors.at(0).first == "old");
}

TEST_CASE("safetensors: a link planted at the file or at its old temporary name is replaced, never written through") {
  ScratchDir dir;
  const fs::path path = dir.path / "model.safetensors", victim = dir.path / "victim";
  write_bytes(victim, "not yours");
  fs::create_symlink(victim, path);
  fs::create_symlink(victim, dir.path / "model.safetensors.tmp");
  save_safetensors(path, {{"x", tensor({1, 2})}});
  CHECK(read_bytes(victim) == "not yours");
  CHECK_FALSE(fs::is_symlink(path));
  CHECK(load_safetensors(path).tensors.at(0).first == "x");
  CHECK(fs::is_symlink(dir.path / "model.safetensors.tmp"));  // not ours: left alone
}

TEST_CASE("safetensors: tensors on the GPU are written from the host copy") {
  if (!gpu_available_or_skip()) return;
  ScratchDir dir;
  fs::path path = dir.path / "gpu.safetensors";
  Tensor base = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, kF32, Device::cuda());
  Tensor transposed = make_view(base, {3, 2}, {1, 3}, 0);
  save_safetensors(path, {{"t", transposed}, {"m", tensor_bool({true, false}, {2}, Device::cuda())}});
  SafetensorsFile file = load_safetensors(path);
  REQUIRE(file.tensors.size() == 2);
  CHECK(file.tensors[0].second.is_cpu());
  require_values(file.tensors[0].second, {1, 4, 2, 5, 3, 6});
  require_same(file.tensors[1].second, tensor_bool({true, false}));
}
