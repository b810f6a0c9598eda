// Reading safetensors files; writing is in safetensors.cpp. The file is untrusted: every
// number in the header is checked before it is used, and nothing is read past its end.
#include "core/io/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/copy.h"
#include "core/factories.h"
#include "core/io/safetensors_detail.h"

namespace tg {

namespace {

using namespace safetensors_detail;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;  // keeps keys in file order

constexpr const char* kLoad = "load_safetensors";
constexpr uint64_t kMaxHeaderBytes = uint64_t{100} << 20;  // the reference reader's limit

void read_exact(int fd, void* data, size_t nbytes, uint64_t offset, const fs::path& path) {
  char* p = static_cast<char*>(data);
  while (nbytes > 0) {
    ssize_t n = ::pread(fd, p, nbytes, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno(kLoad, path, "read failed");
    if (n == 0) fail(kLoad, path, "file ended early (truncated while reading?)");
    p += n;
    offset += static_cast<uint64_t>(n);
    nbytes -= static_cast<size_t>(n);
  }
}

// Parses the header text, rejecting a key that appears twice in one object (JSON parsers
// would otherwise silently keep one of the two values).
Json parse_header(const std::string& text, const fs::path& path) {
  std::vector<std::set<std::string>> open_objects;  // keys seen so far in each open object
  auto reject_duplicates = [&](int depth, Json::parse_event_t event, Json& value) {
    if (event == Json::parse_event_t::object_start) open_objects.emplace_back();
    if (event == Json::parse_event_t::object_end) open_objects.pop_back();
    if (event == Json::parse_event_t::key && !open_objects.back().insert(value.get<std::string>()).second)
      fail(kLoad, path,
           fmt::format("{} '{}' appears twice in the header", depth == 1 ? "tensor name" : "key",
                       value.get<std::string>()));
    return true;
  };
  Json header;
  try {
    header = Json::parse(text, reject_duplicates);
  } catch (const Json::parse_error& e) {
    fail(kLoad, path, fmt::format("header is not valid JSON: {}", e.what()));
  }
  if (!header.is_object()) fail(kLoad, path, fmt::format("header is JSON {}, not an object", header.type_name()));
  return header;
}

// One tensor's header entry, checked against itself and the size of the data region.
struct TensorEntry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

const Json& field(const Json& entry, const char* key, const std::string& name, const fs::path& path) {
  if (!entry.contains(key)) fail(kLoad, path, fmt::format("tensor '{}' has no \"{}\"", name, key));
  return entry[key];
}

uint64_t unsigned_field(const Json& value, int64_t max, const std::string& what, const fs::path& path) {
  if (!value.is_number_unsigned() || value.get<uint64_t>() > static_cast<uint64_t>(max))
    fail(kLoad, path, fmt::format("{} must be an integer in [0, {}], got {}", what, max, value.dump()));
  return value.get<uint64_t>();
}

TensorEntry parse_entry(const std::string& name, const Json& entry, uint64_t data_size, const fs::path& path) {
  if (!entry.is_object())
    fail(kLoad, path, fmt::format("tensor '{}' is JSON {}, not an object", name, entry.type_name()));
  TensorEntry t{name, DType::f32, {}, 0, 0};

  const Json& dtype = field(entry, "dtype", name, path);
  const auto* known = std::find_if(std::begin(kDTypes), std::end(kDTypes), [&](const DTypeName& d) {
    return dtype.is_string() && dtype.get<std::string>() == d.name;
  });
  if (known == std::end(kDTypes))
    fail(kLoad, path,
         fmt::format("tensor '{}' has dtype {}; tapegrad reads only F32, F64, I64 and BOOL", name, dtype.dump()));
  t.dtype = known->dtype;

  const Json& shape = field(entry, "shape", name, path);
  if (!shape.is_array() || shape.size() > static_cast<size_t>(kMaxRank))
    fail(kLoad, path,
         fmt::format("tensor '{}': shape must be an array of at most {} sizes, got {}", name, kMaxRank, shape.dump()));
  // The byte count, checked for overflow. Zero sizes count as 1 in nonzero_bytes so that even an
  // empty tensor's contiguous strides fit in int64.
  int64_t limit = std::numeric_limits<int64_t>::max();
  uint64_t nonzero_bytes = element_size(t.dtype);
  bool empty = false;
  for (const Json& size : shape) {
    auto n = static_cast<int64_t>(unsigned_field(size, limit, fmt::format("tensor '{}': shape size", name), path));
    if (n > 0 && nonzero_bytes > static_cast<uint64_t>(limit) / static_cast<uint64_t>(n))
      fail(kLoad, path, fmt::format("tensor '{}': shape {} is too large", name, shape.dump()));
    nonzero_bytes *= static_cast<uint64_t>(std::max<int64_t>(n, 1));
    empty = empty || n == 0;
    t.shape.push_back(n);
  }
  uint64_t nbytes = empty ? 0 : nonzero_bytes;

  const Json& offsets = field(entry, "data_offsets", name, path);
  if (!offsets.is_array() || offsets.size() != 2)
    fail(kLoad, path, fmt::format("tensor '{}': data_offsets must be [begin, end], got {}", name, offsets.dump()));
  std::string what = fmt::format("tensor '{}': data_offsets entry", name);
  t.begin = unsigned_field(offsets[0], limit, what, path);
  t.end = unsigned_field(offsets[1], limit, what, path);
  if (t.begin > t.end || t.end > data_size)
    fail(kLoad, path,
         fmt::format("tensor '{}': data_offsets [{}, {}] are out of range for a data region of {} bytes", name, t.begin,
                     t.end, data_size));
  if (t.end - t.begin != nbytes)
    fail(kLoad, path,
         fmt::format("tensor '{}': data_offsets [{}, {}] hold {} bytes but {} {} needs {}", name, t.begin, t.end,
                     t.end - t.begin, dtype.get<std::string>(), shape_str(t.shape), nbytes));
  return t;
}

SafetensorsMetadata parse_metadata(const Json& value, const fs::path& path) {
  if (!value.is_object()) fail(kLoad, path, fmt::format("__metadata__ is JSON {}, not an object", value.type_name()));
  SafetensorsMetadata metadata;
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) fail(kLoad, path, fmt::format("__metadata__ '{}' is {}, not a string", key, v.dump()));
    metadata[key] = v.get<std::string>();
  }
  return metadata;
}

}  // namespace

SafetensorsFile load_safetensors(const fs::path& path) {
  Fd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.fd < 0) fail_errno(kLoad, path, "cannot open");
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) fail_errno(kLoad, path, "cannot stat");
  if (!S_ISREG(st.st_mode)) fail(kLoad, path, "not a regular file");
  auto file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < 8)
    fail(kLoad, path, fmt::format("file is {} bytes, too short for the 8-byte header length", file_size));

  unsigned char length[8];
  read_exact(in.fd, length, sizeof length, 0, path);
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= uint64_t{length[i]} << (8 * i);
  if (header_size > file_size - 8)
    fail(kLoad, path,
         fmt::format("header length {} is larger than the {} bytes after it (truncated file?)", header_size,
                     file_size - 8));
  if (header_size > kMaxHeaderBytes)
    fail(kLoad, path, fmt::format("header length {} exceeds the limit of {} bytes", header_size, kMaxHeaderBytes));
  std::string text(header_size, '\0');
  read_exact(in.fd, text.data(), text.size(), 8, path);
  Json header = parse_header(text, path);

  uint64_t data_start = 8 + header_size;
  uint64_t data_size = file_size - data_start;
  SafetensorsFile file;
  std::vector<TensorEntry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey)
      file.metadata = parse_metadata(value, path);
    else
      entries.push_back(parse_entry(key, value, data_size, path));
  }

  // The tensors must tile [0, data_size): sorted by offsets, each starts where the last ended.
  std::stable_sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  uint64_t covered = 0;
  for (const TensorEntry& e : entries) {
    if (e.begin < covered)
      fail(kLoad, path,
           fmt::format("tensor '{}' at data_offsets [{}, {}] overlaps the tensor before it", e.name, e.begin, e.end));
    if (e.begin > covered)
      fail(kLoad, path,
           fmt::format("data bytes [{}, {}) belong to no tensor (a hole before '{}')", covered, e.begin, e.name));
    covered = e.end;
  }
  if (covered != data_size)
    fail(kLoad, path, fmt::format("data bytes [{}, {}) at the end belong to no tensor", covered, data_size));

  for (const TensorEntry& e : entries) {
    Tensor t = empty(e.shape, e.dtype);
    read_exact(in.fd, t.raw_data(), e.end - e.begin, data_start + e.begin, path);
    if (e.dtype == DType::b8) {
      const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
      const auto* bad = std::find_if(bytes, bytes + t.numel(), [](unsigned char b) { return b > 1; });
      if (bad != bytes + t.numel())
        fail(kLoad, path,
             fmt::format("BOOL tensor '{}' holds byte {} at element {}; expected 0 or 1", e.name, *bad, bad - bytes));
    }
    file.tensors.emplace_back(e.name, std::move(t));
  }
  return file;
}

}  // namespace tg
