#pragma once
// A token id file (.bin): a corpus encoded once (`tapegrad tokenizer encode`), so that training
// reads ids instead of text. Little-endian, an 88-byte header, then the ids:
//
//   bytes 0-7    "TGTOKIDS"
//   bytes 8-11   version, 1
//   bytes 12-15  bytes per id: 2 (vocabularies up to 65536 tokens) or 4
//   bytes 16-23  the number of ids
//   bytes 24-87  the SHA-256 of the tokenizer that made them, 64 lowercase hex digits (bpe_sha256)
//   bytes 88-    the ids
//
// The file is untrusted input: a wrong magic, version or width, a size that is not the
// header's, or a hash that is not hex is an error naming the file and the field.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "data/bpe_tokenizer.h"

namespace tg {
class InputFile;
}

namespace tg::data {

inline constexpr uint64_t kTokenIdHeaderBytes = 88;

// Whether `path` names a token id file: it ends in ".bin".
bool is_token_id_file(const std::string& path);

struct TokenIdFileHeader {
  int id_bytes = 2;
  uint64_t count = 0;
  std::string tokenizer_sha256 = {};
};

// Writes `ids` (each < vocab_size) in the narrowest width vocab_size allows.
void write_token_id_file(const std::filesystem::path& path, std::span<const TokenId> ids, int64_t vocab_size,
                         const std::string& tokenizer_sha256);

TokenIdFileHeader read_token_id_header(const std::filesystem::path& path);
// The same checks on a file already open (the memory-mapped reader's, data/mapped_token_ids.h).
TokenIdFileHeader read_token_id_header(const InputFile& file);
// An error naming the file and both hashes unless the header's tokenizer is `tokenizer_sha256`.
void check_token_id_tokenizer(const InputFile& file, const TokenIdFileHeader& header,
                              const std::string& tokenizer_sha256);
// The id at `position` of a file's ids (`id_bytes` wide, little-endian, starting at `ids`); one
// >= vocab_size is an error naming the file, the id and its position.
TokenId token_id_at(const InputFile& file, const unsigned char* ids, int id_bytes, uint64_t position,
                    int64_t vocab_size);
// The header and every id; an id >= vocab_size is an error naming its position.
std::vector<TokenId> read_token_id_file(const std::filesystem::path& path, int64_t vocab_size,
                                        const std::string& tokenizer_sha256);

}  // namespace tg::data
