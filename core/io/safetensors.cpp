// Writing safetensors files; reading is in safetensors_load.cpp.
#include "core/io/safetensors.h"

#include <bit>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/copy.h"
#include "core/io/output_file.h"
#include "core/io/safetensors_detail.h"

// Tensor bytes go to and from the file as they are in memory.
static_assert(std::endian::native == std::endian::little, "safetensors IO assumes a little-endian host");

namespace tg {

namespace safetensors_detail {

void fail(const char* op, const std::filesystem::path& path, const std::string& what) {
  throw Error(op, fmt::format("{}: {}", path.string(), what));
}

std::string crc32_hex(const void* data, size_t nbytes) {
  uLong crc = crc32_z(0, static_cast<const Bytef*>(data), nbytes);
  return fmt::format("{:08x}", crc);
}

}  // namespace safetensors_detail

namespace {

using namespace safetensors_detail;
namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kSave = "save_safetensors";

const char* safetensors_dtype(DType dtype) {
  for (const DTypeName& d : kDTypes)
    if (d.dtype == dtype) return d.name;
  return "?";
}

// The header for tensors laid out back to back in the order given, padded with spaces to a
// multiple of 8 bytes so that the data starts 8-byte aligned in the file. Written piece by piece
// (one small JSON value per tensor) so that it takes time linear in the number of tensors.
std::string build_header(const fs::path& path, const NamedTensors& tensors, const std::vector<Tensor>& host,
                         SafetensorsMetadata metadata) {
  for (const auto& [key, value] : metadata)
    if (key.starts_with(kChecksumPrefix))
      fail(kSave, path, fmt::format("metadata key '{}' is reserved (\"{}*\" holds checksums)", key, kChecksumPrefix));
  for (size_t i = 0; i < tensors.size(); ++i) {
    const size_t nbytes = static_cast<size_t>(host[i].numel()) * element_size(host[i].dtype());
    metadata.emplace(std::string(kChecksumPrefix) + tensors[i].first, crc32_hex(host[i].raw_data(), nbytes));
  }
  std::string text = "{";
  try {
    if (!metadata.empty()) text += fmt::format("\"{}\":{}", kMetadataKey, Json(metadata).dump());
    uint64_t offset = 0;
    for (const auto& [name, t] : tensors) {
      uint64_t nbytes = static_cast<uint64_t>(t.numel()) * element_size(t.dtype());
      text += fmt::format(R"({}{}:{{"dtype":"{}","shape":{},"data_offsets":[{},{}]}})", text.size() > 1 ? "," : "",
                          Json(name).dump(), safetensors_dtype(t.dtype()), Json(t.shape()).dump(), offset,
                          offset + nbytes);
      offset += nbytes;
    }
  } catch (const Json::exception& e) {
    fail(kSave, path, fmt::format("cannot encode the header (names and metadata must be UTF-8): {}", e.what()));
  }
  text += "}";
  text.resize((text.size() + 7) / 8 * 8, ' ');
  if (text.size() > kSafetensorsMaxHeaderBytes)
    fail(kSave, path,
         fmt::format("the header would be {} bytes ({} tensors), over the limit of {} bytes that "
                     "load_safetensors reads",
                     text.size(), tensors.size(), kSafetensorsMaxHeaderBytes));
  return text;
}

// Checks the names and gives each tensor's contiguous host copy (the tensor itself when it
// already is one).
std::vector<Tensor> host_copies(const fs::path& path, const NamedTensors& tensors) {
  std::set<std::string> names;
  std::vector<Tensor> host;
  host.reserve(tensors.size());
  for (const auto& [name, t] : tensors) {
    if (!t.defined()) fail(kSave, path, fmt::format("tensor '{}' is undefined", name));
    if (name == kMetadataKey) fail(kSave, path, "'__metadata__' is reserved and cannot name a tensor");
    if (!names.insert(name).second) fail(kSave, path, fmt::format("tensor name '{}' is given twice", name));
    Tensor h = to_device_copy(t, kCPU);
    host.push_back(h.is_contiguous() ? h : contiguous_copy(h));
  }
  return host;
}

}  // namespace

void save_safetensors(const fs::path& path, const NamedTensors& tensors, const SafetensorsMetadata& metadata) {
  const std::vector<Tensor> host = host_copies(path, tensors);
  const std::string header = build_header(path, tensors, host, metadata);
  std::string length(8, '\0');
  for (int i = 0; i < 8; ++i) length[i] = static_cast<char>(uint64_t{header.size()} >> (8 * i));

  OutputFile out(kSave, path);
  out.write(length);
  out.write(header);
  for (const Tensor& h : host) {
    const size_t nbytes = static_cast<size_t>(h.numel()) * element_size(h.dtype());
    out.write(std::string_view(static_cast<const char*>(h.raw_data()), nbytes));
  }
  out.commit();
}

}  // namespace tg
