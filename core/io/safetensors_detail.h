#pragma once
// What core/io/safetensors.cpp (writing) and safetensors_load.cpp (reading) share. Internal:
// not part of tapegrad's API.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/dtype.h"

namespace tg::safetensors_detail {

inline constexpr const char* kMetadataKey = "__metadata__";
// Metadata key "tapegrad.crc32.<tensor name>": the CRC-32 (zlib's) of the tensor's bytes, as 8
// lowercase hex digits. Written for every tensor; checked on load where present.
inline constexpr std::string_view kChecksumPrefix = "tapegrad.crc32.";

// safetensors dtype names of the tapegrad dtypes.
struct DTypeName {
  DType dtype;
  const char* name;
};
inline constexpr DTypeName kDTypes[] = {
    {DType::f32, "F32"}, {DType::f64, "F64"}, {DType::i64, "I64"}, {DType::b8, "BOOL"}};

// The checksum of `nbytes` bytes as kChecksumPrefix's values spell it.
std::string crc32_hex(const void* data, size_t nbytes);

// Throws tg::Error(op, "<path>: <what>").
[[noreturn]] void fail(const char* op, const std::filesystem::path& path, const std::string& what);

}  // namespace tg::safetensors_detail
