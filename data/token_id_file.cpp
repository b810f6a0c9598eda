#include "data/token_id_file.h"

#include <algorithm>
#include <array>
#include <cstring>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/output_file.h"
#include "core/io/untrusted_text.h"

namespace tg::data {

namespace {

constexpr const char* kTokenIdFileOp = "token ids";
constexpr std::string_view kMagic = "TGTOKIDS";
constexpr uint32_t kVersion = 1;

void put_le(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

uint64_t get_le(const unsigned char* in, int bytes) {
  uint64_t value = 0;
  for (int i = bytes - 1; i >= 0; --i) value = (value << 8) | in[i];
  return value;
}

bool is_sha256_hex(std::string_view text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

}  // namespace

TokenIdFileHeader read_token_id_header(const InputFile& file) {
  if (file.size() < kTokenIdHeaderBytes)
    file.fail(fmt::format("{} bytes is shorter than a token id file's {}-byte header", file.size(),
                          kTokenIdHeaderBytes));
  std::array<unsigned char, kTokenIdHeaderBytes> h;
  file.read_at(h.data(), h.size(), 0);
  if (std::memcmp(h.data(), kMagic.data(), kMagic.size()) != 0)
    file.fail("not a token id file (it does not start with TGTOKIDS; `tapegrad tokenizer encode` writes them)");
  if (const uint64_t version = get_le(h.data() + 8, 4); version != kVersion)
    file.fail(fmt::format("version {} is not one this tapegrad reads ({})", version, kVersion));
  TokenIdFileHeader header;
  header.id_bytes = static_cast<int>(get_le(h.data() + 12, 4));
  if (header.id_bytes != 2 && header.id_bytes != 4)
    file.fail(fmt::format("bytes per id must be 2 or 4, got {}", header.id_bytes));
  header.count = get_le(h.data() + 16, 8);
  header.tokenizer_sha256.assign(reinterpret_cast<const char*>(h.data() + 24), 64);
  if (!is_sha256_hex(header.tokenizer_sha256))
    file.fail(fmt::format("the tokenizer's SHA-256 must be 64 lowercase hex digits, got \"{}\"",
                          excerpt(header.tokenizer_sha256, 64)));
  const uint64_t ids_bytes = file.size() - kTokenIdHeaderBytes;
  if (header.count > ids_bytes / static_cast<uint64_t>(header.id_bytes) ||
      header.count * static_cast<uint64_t>(header.id_bytes) != ids_bytes)
    file.fail(fmt::format("the header says {} ids of {} bytes, but {} bytes follow it (truncated or not one file)",
                          header.count, header.id_bytes, ids_bytes));
  return header;
}

void check_token_id_tokenizer(const InputFile& file, const TokenIdFileHeader& header,
                              const std::string& tokenizer_sha256) {
  if (header.tokenizer_sha256 != tokenizer_sha256)
    file.fail(fmt::format("its ids were made by the tokenizer with SHA-256 {}..., not by this one ({}...)",
                          header.tokenizer_sha256.substr(0, 16), tokenizer_sha256.substr(0, 16)));
}

TokenId token_id_at(const InputFile& file, const unsigned char* ids, int id_bytes, uint64_t position,
                    int64_t vocab_size) {
  const uint64_t id = get_le(ids + position * static_cast<uint64_t>(id_bytes), id_bytes);
  if (id >= static_cast<uint64_t>(vocab_size))
    file.fail(fmt::format("id {} (at position {}) is outside the tokenizer's vocabulary of {} tokens", id, position,
                          vocab_size));
  return static_cast<TokenId>(id);
}

bool is_token_id_file(const std::string& path) { return std::filesystem::path(path).extension() == ".bin"; }

void write_token_id_file(const std::filesystem::path& path, std::span<const TokenId> ids, int64_t vocab_size,
                         const std::string& tokenizer_sha256) {
  if (!is_sha256_hex(tokenizer_sha256)) throw Error(kTokenIdFileOp, "the tokenizer's SHA-256 must be 64 lowercase hex digits");
  const int id_bytes = vocab_size <= 65536 ? 2 : 4;
  std::string bytes(kMagic);
  put_le(bytes, kVersion, 4);
  put_le(bytes, static_cast<uint64_t>(id_bytes), 4);
  put_le(bytes, ids.size(), 8);
  bytes += tokenizer_sha256;
  bytes.reserve(bytes.size() + ids.size() * static_cast<size_t>(id_bytes));
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || ids[i] >= vocab_size)
      throw Error(kTokenIdFileOp, fmt::format("{}: id {} (at position {}) is outside the vocabulary of {} tokens", path.string(),
                                   ids[i], i, vocab_size));
    put_le(bytes, static_cast<uint64_t>(ids[i]), id_bytes);
  }
  write_file_atomically(kTokenIdFileOp, path, bytes);
}

TokenIdFileHeader read_token_id_header(const std::filesystem::path& path) {
  return read_token_id_header(InputFile(kTokenIdFileOp, path));
}

std::vector<TokenId> read_token_id_file(const std::filesystem::path& path, int64_t vocab_size,
                                        const std::string& tokenizer_sha256) {
  const InputFile file(kTokenIdFileOp, path);
  const TokenIdFileHeader header = read_token_id_header(file);
  check_token_id_tokenizer(file, header, tokenizer_sha256);
  std::vector<unsigned char> raw(header.count * static_cast<uint64_t>(header.id_bytes));
  file.read_at(raw.data(), raw.size(), kTokenIdHeaderBytes);
  std::vector<TokenId> ids(header.count);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = token_id_at(file, raw.data(), header.id_bytes, i, vocab_size);
  return ids;
}

}  // namespace tg::data
