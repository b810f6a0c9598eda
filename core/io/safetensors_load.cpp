// Reading safetensors files; writing is in safetensors.cpp. The file is untrusted: every
// number in the header is checked before it is used, nothing is read past its end, nesting
// is bounded before the JSON is parsed, and error messages quote at most an excerpt of it.
#include "core/io/safetensors.h"

#include <algorithm>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/copy.h"
#include "core/factories.h"
#include "core/io/input_file.h"
#include "core/io/safetensors_detail.h"
#include "core/io/untrusted_text.h"

namespace tg {

namespace {

using namespace safetensors_detail;
namespace fs = std::filesystem;
// std::map objects: logarithmic lookup, so that a header of n tensors parses in O(n log n)
// (ordered_json's linear lookup made it quadratic). The file order is kept in Header::names.
using Json = nlohmann::json;

constexpr const char* kLoad = "load_safetensors";

// A value of the header for an error message.
std::string quote(const Json& value) { return excerpt(value.dump()); }
std::string quote(const std::string& name) { return excerpt(name); }

struct Header {
  Json json;
  std::vector<std::string> names;  // the top-level keys in file order
};

// A first pass over the header that builds nothing: it rejects a key that appears twice in
// one object (JSON parsers would otherwise silently keep one of the two values) and collects
// the tensor names in file order. (A parse callback could do this, but nlohmann's callback
// parser scans the parent object at the end of each child: quadratic in the tensor count.)
class HeaderScan : public nlohmann::json_sax<Json> {
 public:
  explicit HeaderScan(const InputFile& file) : file_(file) {}
  std::vector<std::string> names;

  bool start_object(size_t) override {
    keys_.open();
    return true;
  }
  bool end_object() override {
    keys_.close();
    return true;
  }
  bool key(string_t& name) override {
    if (!keys_.add(name))
      file_.fail(fmt::format("{} '{}' appears twice in the header", keys_.depth() == 1 ? "tensor name" : "key",
                             quote(name)));
    if (keys_.depth() == 1) names.push_back(name);
    return true;
  }
  bool parse_error(size_t, const std::string&, const Json::exception& e) override {
    // parse_error, or out_of_range for a number such as 1e400
    file_.fail(fmt::format("header is not valid JSON: {}", excerpt(e.what(), 160)));
  }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_array(size_t) override { return true; }
  bool end_array() override { return true; }

 private:
  const InputFile& file_;
  JsonObjectKeys keys_;
};

// Parses the header text after checking its nesting (no deeper than the format needs) and keys.
Header parse_header(const std::string& text, const InputFile& file) {
  if (auto at = json_too_deep(text, kSafetensorsMaxDepth))
    file.fail(fmt::format("header nests arrays and objects more than {} deep (at byte {})", kSafetensorsMaxDepth,
                          *at));
  HeaderScan scan(file);
  Json::sax_parse(text, &scan);
  Header header{Json::parse(text), std::move(scan.names)};
  if (!header.json.is_object())
    file.fail(fmt::format("header is JSON {}, not an object", header.json.type_name()));
  return header;
}

// One tensor's header entry, checked against itself and the size of the data region.
struct TensorEntry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

const Json& field(const Json& entry, const char* key, const std::string& name, const InputFile& file) {
  auto it = entry.find(key);
  if (it == entry.end()) file.fail(fmt::format("tensor '{}' has no \"{}\"", quote(name), key));
  return *it;
}

uint64_t unsigned_field(const Json& value, int64_t max, const std::string& what, const InputFile& file) {
  if (!value.is_number_unsigned() || value.get<uint64_t>() > static_cast<uint64_t>(max))
    file.fail(fmt::format("{} must be an integer in [0, {}], got {}", what, max, quote(value)));
  return value.get<uint64_t>();
}

TensorEntry parse_entry(const std::string& name, const Json& entry, uint64_t data_size, const InputFile& file) {
  const std::string tensor = fmt::format("tensor '{}'", quote(name));
  if (!entry.is_object()) file.fail(fmt::format("{} is JSON {}, not an object", tensor, entry.type_name()));
  TensorEntry t{name, DType::f32, {}, 0, 0};

  const Json& dtype = field(entry, "dtype", name, file);
  const auto* known = std::find_if(std::begin(kDTypes), std::end(kDTypes), [&](const DTypeName& d) {
    return dtype.is_string() && dtype.get_ref<const std::string&>() == d.name;
  });
  if (known == std::end(kDTypes))
    file.fail(fmt::format("{} has dtype {}; tapegrad reads only F32, F64, I64 and BOOL", tensor, quote(dtype)));
  t.dtype = known->dtype;

  const Json& shape = field(entry, "shape", name, file);
  if (!shape.is_array() || shape.size() > static_cast<size_t>(kMaxRank))
    file.fail(fmt::format("{}: shape must be an array of at most {} sizes, got {}", tensor, kMaxRank, quote(shape)));
  // The byte count, checked for overflow. Zero sizes count as 1 in nonzero_bytes so that even an
  // empty tensor's contiguous strides fit in int64.
  int64_t limit = std::numeric_limits<int64_t>::max();
  uint64_t nonzero_bytes = element_size(t.dtype);
  bool empty = false;
  for (const Json& size : shape) {
    auto n = static_cast<int64_t>(unsigned_field(size, limit, tensor + ": shape size", file));
    if (n > 0 && nonzero_bytes > static_cast<uint64_t>(limit) / static_cast<uint64_t>(n))
      file.fail(fmt::format("{}: shape {} is too large", tensor, quote(shape)));
    nonzero_bytes *= static_cast<uint64_t>(std::max<int64_t>(n, 1));
    empty = empty || n == 0;
    t.shape.push_back(n);
  }
  uint64_t nbytes = empty ? 0 : nonzero_bytes;

  const Json& offsets = field(entry, "data_offsets", name, file);
  if (!offsets.is_array() || offsets.size() != 2)
    file.fail(fmt::format("{}: data_offsets must be [begin, end], got {}", tensor, quote(offsets)));
  t.begin = unsigned_field(offsets[0], limit, tensor + ": data_offsets entry", file);
  t.end = unsigned_field(offsets[1], limit, tensor + ": data_offsets entry", file);
  if (t.begin > t.end || t.end > data_size)
    file.fail(fmt::format("{}: data_offsets [{}, {}] are out of range for a data region of {} bytes", tensor, t.begin,
                          t.end, data_size));
  if (t.end - t.begin != nbytes)
    file.fail(fmt::format("{}: data_offsets [{}, {}] hold {} bytes but {} {} needs {}", tensor, t.begin, t.end,
                          t.end - t.begin, known->name, shape_str(t.shape), nbytes));
  return t;
}

SafetensorsMetadata parse_metadata(const Json& value, const InputFile& file) {
  if (!value.is_object()) file.fail(fmt::format("__metadata__ is JSON {}, not an object", value.type_name()));
  SafetensorsMetadata metadata;
  for (const auto& [key, v] : value.items()) {
    if (!v.is_string()) file.fail(fmt::format("__metadata__ '{}' is {}, not a string", quote(key), quote(v)));
    metadata.emplace_hint(metadata.end(), key, v.get<std::string>());  // a Json object iterates sorted
  }
  return metadata;
}

// Takes the checksums (kChecksumPrefix) out of the metadata: tensor name -> 8 hex digits.
std::map<std::string, std::string> take_checksums(SafetensorsMetadata& metadata) {
  std::map<std::string, std::string> checksums;
  auto it = metadata.lower_bound(std::string(kChecksumPrefix));
  while (it != metadata.end() && it->first.starts_with(kChecksumPrefix)) {
    checksums.emplace(it->first.substr(kChecksumPrefix.size()), it->second);
    it = metadata.erase(it);
  }
  return checksums;
}

}  // namespace

SafetensorsFile load_safetensors(const fs::path& path) {
  InputFile in(kLoad, path);
  const uint64_t file_size = in.size();
  if (file_size < 8) in.fail(fmt::format("file is {} bytes, too short for the 8-byte header length", file_size));

  unsigned char length[8];
  in.read_at(length, sizeof length, 0);
  uint64_t header_size = 0;
  for (int i = 0; i < 8; ++i) header_size |= uint64_t{length[i]} << (8 * i);
  if (header_size > file_size - 8)
    in.fail(fmt::format("header length {} is larger than the {} bytes after it (truncated file?)", header_size,
                        file_size - 8));
  if (header_size > kSafetensorsMaxHeaderBytes)
    in.fail(fmt::format("header length {} exceeds the limit of {} bytes", header_size, kSafetensorsMaxHeaderBytes));
  std::string text(header_size, '\0');
  in.read_at(text.data(), text.size(), 8);
  const Header header = parse_header(text, in);

  const uint64_t data_start = 8 + header_size;
  const uint64_t data_size = file_size - data_start;
  SafetensorsFile file;
  std::vector<TensorEntry> entries;
  entries.reserve(header.names.size());
  for (const std::string& name : header.names) {
    const Json& value = *header.json.find(name);
    if (name == kMetadataKey) file.metadata = parse_metadata(value, in);
    else entries.push_back(parse_entry(name, value, data_size, in));
  }
  std::map<std::string, std::string> checksums = take_checksums(file.metadata);

  // The tensors must tile [0, data_size): sorted by offsets, each starts where the last ended.
  std::stable_sort(entries.begin(), entries.end(), [](const TensorEntry& a, const TensorEntry& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  uint64_t covered = 0;
  for (const TensorEntry& e : entries) {
    if (e.begin < covered)
      in.fail(fmt::format("tensor '{}' at data_offsets [{}, {}] overlaps the tensor before it", quote(e.name), e.begin,
                          e.end));
    if (e.begin > covered)
      in.fail(fmt::format("data bytes [{}, {}) belong to no tensor (a hole before '{}')", covered, e.begin,
                          quote(e.name)));
    covered = e.end;
  }
  if (covered != data_size)
    in.fail(fmt::format("data bytes [{}, {}) at the end belong to no tensor", covered, data_size));

  for (const TensorEntry& e : entries) {
    Tensor t = empty(e.shape, e.dtype);
    const size_t nbytes = e.end - e.begin;
    in.read_at(t.raw_data(), nbytes, data_start + e.begin);
    if (auto expected = checksums.find(e.name); expected != checksums.end()) {
      const std::string actual = crc32_hex(t.raw_data(), nbytes);
      if (actual != expected->second)
        in.fail(fmt::format("tensor '{}': its bytes have CRC-32 {} but the file records {} (the data is corrupt)",
                            quote(e.name), actual, quote(expected->second)));
      checksums.erase(expected);
    }
    if (e.dtype == DType::b8) {
      const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
      const auto* bad = std::find_if(bytes, bytes + t.numel(), [](unsigned char b) { return b > 1; });
      if (bad != bytes + t.numel())
        in.fail(fmt::format("BOOL tensor '{}' holds byte {} at element {}; expected 0 or 1", quote(e.name), *bad,
                            bad - bytes));
    }
    file.tensors.emplace_back(e.name, std::move(t));
  }
  if (!checksums.empty())
    in.fail(fmt::format("__metadata__ has a checksum for tensor '{}', which the file does not hold",
                        quote(checksums.begin()->first)));
  return file;
}

}  // namespace tg
