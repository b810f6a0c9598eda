// Safetensors files as untrusted input: nesting, numbers out of range, files that are not
// regular files, checksums, long values in messages, and the time a large header takes.
#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "core/io/safetensors.h"
#include "safetensors_test_util.h"
#include "test_util.h"

using namespace tg;
using namespace tg::test;
namespace fs = std::filesystem;

namespace {

// The message of the tg::Error that loading `path` throws ("" if it loads).
std::string load_error(const fs::path& path) {
  try {
    load_safetensors(path);
  } catch (const tg::Error& e) {
    return e.what();
  }
  return "";
}

std::string nested(const std::string& open, const std::string& close, int depth) {
  std::string out;
  for (int i = 0; i < depth; ++i) out += open;
  for (int i = 0; i < depth; ++i) out += close;
  return out;
}

// A header of empty tensors "t0000000", "t0000001", ... padded with spaces to exactly `bytes`.
std::string empty_tensors_header(size_t bytes) {
  std::string header = "{";
  for (size_t i = 0;; ++i) {
    std::string entry =
        fmt::format(R"({}"t{:07}":{{"dtype":"F32","shape":[0],"data_offsets":[0,0]}})", i == 0 ? "" : ",", i);
    if (header.size() + entry.size() + 1 > bytes) break;
    header += entry;
  }
  header += "}";
  header.resize(bytes, ' ');
  return header;
}

// The fastest of `repeats` loads of `path`, in seconds.
double load_seconds(const fs::path& path, int repeats) {
  double best = 1e9;
  for (int i = 0; i < repeats; ++i) {
    auto start = std::chrono::steady_clock::now();
    load_safetensors(path);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace

TEST_CASE("safetensors: deeply nested JSON in any field is refused before anything recurses") {
  ScratchDir dir;
  const std::string deep = nested("[", "]", 100000);
  const std::string fields[] = {
      R"({"a":{"dtype":)" + deep + R"(,"shape":[],"data_offsets":[0,4]}})",
      R"({"a":{"dtype":"F32","shape":)" + deep + R"(,"data_offsets":[0,4]}})",
      R"({"a":{"dtype":"F32","shape":[],"data_offsets":)" + deep + "}}",
      R"({"__metadata__":{"k":)" + deep + "}}",
      R"({"a":)" + nested(R"({"b":)", "}", 100000) + "}",
      deep,
  };
  for (const std::string& header : fields) {
    CAPTURE(header.substr(0, 60));
    fs::path path = dir.path / "deep.safetensors";
    write_bytes(path, safetensors_bytes(header, std::string(4, '\0')));
    const std::string what = load_error(path);
    CHECK(
        what.starts_with("load_safetensors: " + path.string() + ": header nests arrays and objects more than 8 deep"));
    CHECK(what.size() < 300);
  }
  // Eight deep is allowed by the scan (and then refused as a bad shape, quoted short).
  fs::path path = dir.path / "eight.safetensors";
  write_bytes(path,
              safetensors_bytes(R"({"a":{"dtype":"F32","shape":)" + nested("[", "]", 6) + R"(,"data_offsets":[0,4]}})",
                                std::string(4, '\0')));
  CHECK(
      load_error(path).find("tensor 'a': shape size must be an integer in [0, 9223372036854775807], got [[[[[]]]]]") !=
      std::string::npos);
}

TEST_CASE("safetensors: a number out of range is an error naming the file, not a foreign exception") {
  ScratchDir dir;
  for (const char* header : {R"({"a":1e400})", R"({"a":{"dtype":"F32","shape":[1e400],"data_offsets":[0,4]}})",
                             R"({"a":{"dtype":"F32","shape":[],"data_offsets":[0,-1e999]}})"}) {
    CAPTURE(header);
    fs::path path = dir.path / "big_number.safetensors";
    write_bytes(path, safetensors_bytes(header, std::string(4, '\0')));
    const std::string what = load_error(path);
    CHECK(what.starts_with("load_safetensors: " + path.string() + ": header is not valid JSON"));
    CHECK(what.find("number overflow") != std::string::npos);
  }
}

TEST_CASE("safetensors: a FIFO, a directory or a missing file is refused at once, naming the path") {
  ScratchDir dir;
  const fs::path fifo = dir.path / "fifo.safetensors";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a FIFO for reading blocks until a writer comes: this returns at once or hangs.
  CHECK(load_error(fifo) == "load_safetensors: " + fifo.string() + ": is a FIFO (named pipe), not a regular file");
  CHECK(load_error(dir.path) == "load_safetensors: " + dir.path.string() + ": is a directory, not a regular file");
  CHECK(load_error(dir.path / "none.safetensors") ==
        "load_safetensors: " + (dir.path / "none.safetensors").string() + ": cannot open: No such file or directory");
}

TEST_CASE("safetensors: a flipped bit in a tensor's bytes is an error naming the tensor") {
  ScratchDir dir;
  fs::path path = dir.path / "model.safetensors";
  save_safetensors(path, {{"w", tensor({1, 2, 3})}, {"b", tensor({4})}}, {{"note", "x"}});
  std::string bytes = read_bytes(path);
  CHECK(bytes.find(R"("tapegrad.crc32.w":")") != std::string::npos);
  CHECK(load_safetensors(path).metadata == SafetensorsMetadata{{"note", "x"}});

  std::string flipped = bytes;
  flipped[flipped.size() - 5] ^= 0x10;  // in w's last float (b's 4 bytes come after it)
  write_bytes(path, flipped);
  const std::string what = load_error(path);
  CHECK(what.starts_with("load_safetensors: " + path.string() + ": tensor 'w': its bytes have CRC-32 "));
  CHECK(what.find("(the data is corrupt)") != std::string::npos);

  // A checksum for a tensor the file does not hold, and one that is not a checksum.
  auto checksum_error = [&](const std::string& metadata) {
    write_bytes(path, safetensors_bytes(R"({"__metadata__":)" + metadata +
                                            R"(,"a":{"dtype":"F32","shape":[],)"
                                            R"("data_offsets":[0,4]}})",
                                        std::string(4, '\0')));
    return load_error(path);
  };
  CHECK(checksum_error(R"({"tapegrad.crc32.a":"2144df1c","tapegrad.crc32.z":"00000000"})")
            .find("__metadata__ has a checksum for tensor 'z', which the file does not hold") != std::string::npos);
  CHECK(checksum_error(R"({"tapegrad.crc32.a":"zz"})").find("file records zz") != std::string::npos);
  CHECK(checksum_error(R"({"tapegrad.crc32.a":"2144df1c"})").empty());  // zlib.crc32(bytes(4)) = 0x2144df1c
  CHECK(checksum_error(R"({"other":"x"})").empty());                    // no checksum: another writer's file

  CHECK_THROWS_WITH_AS(save_safetensors(path, {{"a", scalar(1)}}, {{"tapegrad.crc32.a", "0"}}),
                       doctest::Contains("metadata key 'tapegrad.crc32.a' is reserved"), tg::Error);
}

TEST_CASE("safetensors: error messages quote at most an excerpt of a long value") {
  ScratchDir dir;
  fs::path path = dir.path / "long.safetensors";
  const std::string name(100000, 'n');
  write_bytes(path, safetensors_bytes("{\"" + name + R"(":{"dtype":")" + std::string(100000, 'F') +
                                          R"(","shape":[],"data_offsets":[0,4]}})",
                                      std::string(4, '\0')));
  const std::string what = load_error(path);
  CHECK(what.find("tensor 'nnnnnnnnnn") != std::string::npos);
  CHECK(what.find("...") != std::string::npos);
  CHECK(what.size() < 300);
}

TEST_CASE("safetensors: the largest allowed header loads in time that grows linearly, not quadratically") {
  ScratchDir dir;
  const fs::path full = dir.path / "full.safetensors", small = dir.path / "small.safetensors";
  write_bytes(full, safetensors_bytes(empty_tensors_header(kSafetensorsMaxHeaderBytes), ""));
  write_bytes(small, safetensors_bytes(empty_tensors_header(kSafetensorsMaxHeaderBytes / 64), ""));
  REQUIRE(load_safetensors(full).tensors.size() > 30000);
  const double t_full = load_seconds(full, 3), t_small = load_seconds(small, 9);
  MESSAGE(fmt::format("a {} byte header of empty tensors loads in {:.3f} s, one of 1/64 the size in {:.4f} s",
                      kSafetensorsMaxHeaderBytes, t_full, t_small));
  // 64 times the header: linear gives a ratio of 64, quadratic 4096. The bound is 4x below
  // quadratic and far above linear, because a shared machine slows the large load more than the
  // small ones (ASan's allocator alone gives about 96 on an idle one; at 1/8 the size, a loaded
  // machine once gave 25 where linear is 8).
  CHECK(t_full / t_small < 1024);

  // One byte more is refused, on reading and on writing.
  write_bytes(full, safetensors_bytes(empty_tensors_header(kSafetensorsMaxHeaderBytes + 1), ""));
  CHECK(load_error(full).find("header length 2097153 exceeds the limit of 2097152 bytes") != std::string::npos);
  NamedTensors many;
  for (int i = 0; i < 40000; ++i) many.emplace_back(fmt::format("tensor{:07}", i), zeros({0}));
  CHECK_THROWS_WITH_AS(
      save_safetensors(dir.path / "many.safetensors", many),
      doctest::Contains("(40000 tensors), over the limit of 2097152 bytes that load_safetensors reads"), tg::Error);
}
