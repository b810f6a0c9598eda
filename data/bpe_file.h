#pragma once
// A byte-level BPE tokenizer's file (tok.json), written by `tapegrad tokenizer train`:
//
//   {"format": "tapegrad-bpe", "version": 1,
//    "merges": [104, 101, 256, 108, ...],   merge i joins ids merges[2i] and merges[2i+1] into 256 + i
//    "specials": ["<bos>"]}
//
// The file is untrusted input: read through InputFile, at most kMaxBpeFileBytes, nested at
// most 2 deep, every field checked (BpeTokenizer's constructor checks the merges), errors
// naming the file. Its identity is the SHA-256 of its canonical text (bpe_to_json), which
// token id files (data/token_id_file.h) record, so that ids are never decoded with another
// tokenizer than the one that made them.
#include <filesystem>
#include <string>
#include <string_view>

#include "core/io/input_file.h"
#include "data/bpe_tokenizer.h"

namespace tg::data {

inline constexpr size_t kMaxBpeFileBytes = size_t{64} << 20;

std::string bpe_to_json(const BpeTokenizer& tokenizer);  // one line, the canonical text
// `where` names the text in errors (its file).
BpeTokenizer bpe_from_json(std::string_view text, const std::string& where);

void save_bpe_tokenizer(const BpeTokenizer& tokenizer, const std::filesystem::path& path);
BpeTokenizer load_bpe_tokenizer(const std::filesystem::path& path);
BpeTokenizer load_bpe_tokenizer(const InputFile& file);

// 64 lowercase hex digits: the SHA-256 of bpe_to_json(tokenizer).
std::string bpe_sha256(const BpeTokenizer& tokenizer);
// The same of any bytes.
std::string sha256_hex(std::string_view bytes);

}  // namespace tg::data
