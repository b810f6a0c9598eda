#pragma once
// Safetensors files (Hugging Face's format): named tensors plus string metadata.
//
//   8 bytes   N, the header length, unsigned little-endian
//   N bytes   JSON header, may be padded with trailing spaces:
//               {"__metadata__": {"key": "value", ...},              (optional, string -> string)
//                "w": {"dtype": "F32", "shape": [2,3], "data_offsets": [begin, end]}, ...}
//   the rest  the tensors' bytes, row-major and little-endian. Offsets count from the first byte
//             after the header; the tensors tile this region exactly (no holes, no overlap).
//
// Limits of the reader (files beyond them are refused with an error stating the limit):
//   header   at most kSafetensorsMaxHeaderBytes = 2 MiB (the reference reader allows 100 MiB),
//            which holds at most about 42,000 tensors (the smallest entry takes 50 bytes). The
//            reader takes O(n log n) time in the header's size: the largest allowed header loads
//            in about 0.25 s (docs/design.md, "Untrusted input"). save_safetensors refuses to
//            write a header over the limit.
//   nesting  arrays and objects at most kSafetensorsMaxDepth deep (the format needs 3).
//
// Checksums: tapegrad writes the CRC-32 of every tensor's bytes into the metadata, as
// "tapegrad.crc32.<name>": "<8 hex digits>", and the reader checks every checksum present (so
// that a flipped bit is an error naming the tensor). Files from other writers carry none and
// load unchecked; the checksum keys are not part of SafetensorsFile::metadata.
//
// dtypes: F32 <-> float32, F64 <-> float64, I64 <-> int64, BOOL <-> bool (one byte, 0 or 1).
// Files with other dtypes (F16, BF16, I32, ...) are rejected with an error naming the tensor.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace tg {

// Tensors with their names, in a stable order (the order given, or the order in the file).
using NamedTensors = std::vector<std::pair<std::string, Tensor>>;
using SafetensorsMetadata = std::map<std::string, std::string>;

inline constexpr uint64_t kSafetensorsMaxHeaderBytes = uint64_t{2} << 20;
inline constexpr int kSafetensorsMaxDepth = 8;

struct SafetensorsFile {
  NamedTensors tensors;  // in data-offset order; every tensor on the CPU and contiguous
  SafetensorsMetadata metadata;
};

// Writes `tensors` in the order given (any device, any strides: copied to the host row-major)
// and `metadata`. Atomic and never through a link (core/io/output_file.h, OutputFile): written
// to a new file beside `path`, fsynced and renamed over it. On any failure `path` is left as it
// was and the temporary file is removed.
// Throws tg::Error("save_safetensors", ...) naming the file: duplicate or reserved
// ("__metadata__") names, metadata keys starting "tapegrad.crc32.", undefined tensors, a
// header over kSafetensorsMaxHeaderBytes, and every failing system call.
void save_safetensors(const std::filesystem::path& path, const NamedTensors& tensors,
                      const SafetensorsMetadata& metadata = {});

// Reads a whole file. Every malformed input (not a regular file, too short, header length past
// the end or over the limit, invalid JSON, nesting over the limit, missing or mistyped fields,
// unsupported dtype, offsets out of range, overlapping or not matching dtype * shape, holes in
// the data, duplicate names, a BOOL byte other than 0/1, a checksum that does not match)
// throws tg::Error("load_safetensors", ...) naming the file and what is wrong.
SafetensorsFile load_safetensors(const std::filesystem::path& path);

}  // namespace tg
