#pragma once
// Helpers shared by the safetensors test files: a scratch directory and raw file bytes.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace tg::test {

// A fresh directory under the system's temp directory, removed with its contents at scope end.
struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    static int count = 0;
    path = std::filesystem::temp_directory_path() /
           ("tapegrad_safetensors_" + std::to_string(::getpid()) + "_" + std::to_string(count++));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

// A value's bytes as they lie in memory (little-endian on every host tapegrad builds for).
template <class T> std::string raw_bytes(T value) {
  std::string out(sizeof value, '\0');
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

// A safetensors file: the header's length as 8 little-endian bytes, the header, the data.
inline std::string safetensors_bytes(const std::string& header, const std::string& data) {
  return raw_bytes(uint64_t{header.size()}) + header + data;
}

}  // namespace tg::test
