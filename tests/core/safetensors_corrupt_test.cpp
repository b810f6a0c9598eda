// Malformed safetensors files: each must give a tg::Error naming the file and the problem,
// never a crash or a read past the end.
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/io/safetensors.h"
#include "safetensors_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;
namespace fs = std::filesystem;

namespace {

// One header entry: {"dtype":"<dtype>","shape":<shape>,"data_offsets":<offsets>}
std::string entry(const std::string& dtype, const std::string& shape, const std::string& offsets) {
  return R"({"dtype":")" + dtype + R"(","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}";
}

// A header object from (name, JSON value) pairs, in the order given.
std::string header(std::initializer_list<std::pair<std::string, std::string>> entries) {
  std::string out;
  for (const auto& [name, value] : entries) out += (out.empty() ? "{\"" : ",\"") + name + "\":" + value;
  return out + "}";
}

// Requires that loading `path` throws tg::Error "load_safetensors: <path>: ..." containing `message`.
void require_load_error(const fs::path& path, const std::string& message) {
  std::string what;
  try {
    load_safetensors(path);
  } catch (const tg::Error& e) {
    what = e.what();
  }
  CAPTURE(what);
  REQUIRE_FALSE(what.empty());  // it must throw
  CHECK(what.starts_with("load_safetensors: " + path.string() + ": "));
  CHECK(what.find(message) != std::string::npos);
}

struct BadFile {
  std::string problem;
  std::string bytes;
  std::string message;  // a part of the expected error message
};

}  // namespace

TEST_CASE("safetensors: every malformed file gives a clear error") {
  const std::string x = header({{"x", entry("F32", "[2]", "[0,8]")}});  // a valid header
  const std::string eight(8, '\0');
  std::string valid = safetensors_bytes(x, eight);
  std::string too_long_length = raw_bytes(uint64_t{1000}) + x + eight;
  std::string huge_length = raw_bytes(~uint64_t{0}) + x + eight;
  std::string seventeen_dims = "[1";
  for (int i = 1; i < 17; ++i) seventeen_dims += ",1";
  seventeen_dims += "]";

  std::vector<BadFile> cases = {
      {"an empty file", "", "file is 0 bytes, too short for the 8-byte header length"},
      {"5 bytes", std::string("\x05\0\0\0\0", 5), "file is 5 bytes, too short"},
      {"header length past the end", too_long_length, "header length 1000 is larger than the 62 bytes after it"},
      {"header length 2^64-1", huge_length, "header length 18446744073709551615 is larger than"},
      {"truncated inside the header", valid.substr(0, 20), "is larger than the 12 bytes after it"},
      {"truncated inside the data", valid.substr(0, valid.size() - 3),
       "tensor 'x': data_offsets [0, 8] are out of range for a data region of 5 bytes"},
      {"an empty header", safetensors_bytes("", eight), "header is not valid JSON"},
      {"invalid JSON", safetensors_bytes(R"({"x":{"dtype")", eight), "header is not valid JSON"},
      {"invalid UTF-8", safetensors_bytes("{\"\xff\":1}", ""), "header is not valid JSON"},
      {"a header that is not an object", safetensors_bytes("[1,2]", ""), "header is JSON array, not an object"},
      {"an entry that is not an object", safetensors_bytes(R"({"x":3})", ""),
       "tensor 'x' is JSON number, not an object"},
      {"no dtype", safetensors_bytes(R"({"x":{"shape":[2],"data_offsets":[0,8]}})", eight),
       R"(tensor 'x' has no "dtype")"},
      {"no shape", safetensors_bytes(R"({"x":{"dtype":"F32","data_offsets":[0,8]}})", eight),
       R"(tensor 'x' has no "shape")"},
      {"no data_offsets", safetensors_bytes(R"({"x":{"dtype":"F32","shape":[2]}})", eight),
       R"(tensor 'x' has no "data_offsets")"},
      {"a dtype that is not a string",
       safetensors_bytes(R"({"x":{"dtype":5,"shape":[2],"data_offsets":[0,8]}})", eight),
       "tensor 'x' has dtype 5; tapegrad reads only F32, F64, I64 and BOOL"},
      {"an unknown dtype", safetensors_bytes(header({{"x", entry("F33", "[2]", "[0,8]")}}), eight),
       R"(tensor 'x' has dtype "F33")"},
      {"a negative size", safetensors_bytes(header({{"x", entry("F32", "[-2]", "[0,8]")}}), eight),
       "tensor 'x': shape size must be an integer in [0, 9223372036854775807], got -2"},
      {"a fractional size", safetensors_bytes(header({{"x", entry("F32", "[2.0]", "[0,8]")}}), eight),
       "shape size must be an integer"},
      {"a shape that is not an array", safetensors_bytes(header({{"x", entry("F32", "2", "[0,8]")}}), eight),
       "tensor 'x': shape must be an array of at most 16 sizes, got 2"},
      {"17 dims", safetensors_bytes(header({{"x", entry("F32", seventeen_dims, "[0,4]")}}), std::string(4, '\0')),
       "shape must be an array of at most 16 sizes"},
      {"a shape whose byte count overflows",
       safetensors_bytes(header({{"x", entry("F32", "[4294967296,4294967296]", "[0,8]")}}), eight),
       "tensor 'x': shape [4294967296,4294967296] is too large"},
      {"one offset", safetensors_bytes(header({{"x", entry("F32", "[2]", "[0]")}}), eight),
       "tensor 'x': data_offsets must be [begin, end], got [0]"},
      {"a negative offset", safetensors_bytes(header({{"x", entry("F32", "[2]", "[-8,0]")}}), eight),
       "tensor 'x': data_offsets entry must be an integer"},
      {"an end past the data", safetensors_bytes(header({{"x", entry("F32", "[4]", "[0,16]")}}), eight),
       "data_offsets [0, 16] are out of range for a data region of 8 bytes"},
      {"begin after end", safetensors_bytes(header({{"x", entry("F32", "[2]", "[8,0]")}}), eight),
       "data_offsets [8, 0] are out of range"},
      {"offsets that do not match dtype * shape",
       safetensors_bytes(header({{"x", entry("F32", "[3]", "[0,8]")}}), eight),
       "tensor 'x': data_offsets [0, 8] hold 8 bytes but F32 (3,) needs 12"},
      {"overlapping tensors",
       safetensors_bytes(header({{"x", entry("F32", "[2]", "[0,8]")}, {"y", entry("F32", "[1]", "[4,8]")}}), eight),
       "tensor 'y' at data_offsets [4, 8] overlaps the tensor before it"},
      {"the same bytes twice",
       safetensors_bytes(header({{"x", entry("F32", "[2]", "[0,8]")}, {"y", entry("I64", "[]", "[0,8]")}}), eight),
       "overlaps the tensor before it"},
      {"a hole at the start", safetensors_bytes(header({{"x", entry("F32", "[1]", "[4,8]")}}), eight),
       "data bytes [0, 4) belong to no tensor (a hole before 'x')"},
      {"a hole between tensors",
       safetensors_bytes(header({{"x", entry("F32", "[1]", "[0,4]")}, {"y", entry("F32", "[1]", "[8,12]")}}),
                         std::string(12, '\0')),
       "data bytes [4, 8) belong to no tensor (a hole before 'y')"},
      {"bytes after the last tensor", safetensors_bytes(x, std::string(12, '\0')),
       "data bytes [8, 12) at the end belong to no tensor"},
      {"a duplicate tensor name",
       safetensors_bytes(header({{"x", entry("F32", "[1]", "[0,4]")}, {"x", entry("F32", "[1]", "[4,8]")}}), eight),
       "tensor name 'x' appears twice in the header"},
      {"a duplicate key in an entry",
       safetensors_bytes(R"({"x":{"dtype":"F32","dtype":"F64","shape":[2],"data_offsets":[0,8]}})", eight),
       "key 'dtype' appears twice in the header"},
      {"metadata that is not an object", safetensors_bytes(R"({"__metadata__":["a"]})", ""),
       "__metadata__ is JSON array, not an object"},
      {"a metadata value that is not a string", safetensors_bytes(R"({"__metadata__":{"epoch":3}})", ""),
       "__metadata__ 'epoch' is 3, not a string"},
      {"a BOOL byte that is not 0 or 1",
       safetensors_bytes(header({{"m", entry("BOOL", "[3]", "[0,3]")}}), std::string("\x01\x00\x02", 3)),
       "BOOL tensor 'm' holds byte 2 at element 2; expected 0 or 1"},
  };
  ScratchDir dir;
  for (size_t i = 0; i < cases.size(); ++i) {
    CAPTURE(cases[i].problem);
    fs::path path = dir.path / ("bad" + std::to_string(i) + ".safetensors");
    write_bytes(path, cases[i].bytes);
    require_load_error(path, cases[i].message);
  }
}

TEST_CASE("safetensors: unsupported dtypes name the tensor and the dtype") {
  ScratchDir dir;
  for (const char* dtype : {"F16", "BF16", "I32", "U8", "F8_E4M3"}) {
    CAPTURE(dtype);
    fs::path path = dir.path / (std::string(dtype) + ".safetensors");
    write_bytes(path, safetensors_bytes(header({{"w", entry(dtype, "[2]", "[0,4]")}}), std::string(4, '\0')));
    require_load_error(
        path, "tensor 'w' has dtype \"" + std::string(dtype) + "\"; tapegrad reads only F32, F64, I64 and BOOL");
  }
}

TEST_CASE("safetensors: a missing file or a directory is an error naming the path") {
  ScratchDir dir;
  require_load_error(dir.path / "missing.safetensors", "cannot open: No such file or directory");
  require_load_error(dir.path, "not a regular file");
}
