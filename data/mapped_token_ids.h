#pragma once
// A token id file (data/token_id_file.h) mapped read-only into memory, so that a corpus larger
// than memory trains without being read: only the pages of the windows read are touched.
//
// Opening checks the header exactly as read_token_id_header does (magic, version, width, a size
// that is the header's count of ids) and the tokenizer's hash; it does not scan the ids (that
// would touch every page). An id is checked against the vocabulary when it is read: an id out
// of range is an error naming the file, the id and its position.
//
// Resident memory: the pages of a file mapping that a process touched count in its RSS until
// they leave its page tables, so random windows over a 2 GB file would grow RSS towards 2 GB.
// read() therefore drops the pages it touched from the mapping once the ids are copied
// (madvise MADV_DONTNEED; the data stays in the page cache, so a later read of the same window
// costs a minor fault, not a disk read). RSS stays at a window's pages, whatever the file's size.
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "core/io/input_file.h"
#include "data/token_id_file.h"

namespace tg::data {

class MappedTokenIds {
 public:
  // `tokenizer_sha256` is bpe_sha256 of the tokenizer the ids must come from; `vocab_size` its
  // vocabulary. Errors are tg::Error("token ids", "<path>: <what>").
  MappedTokenIds(const std::filesystem::path& path, const std::string& tokenizer_sha256, int64_t vocab_size);
  ~MappedTokenIds();
  MappedTokenIds(const MappedTokenIds&) = delete;
  MappedTokenIds& operator=(const MappedTokenIds&) = delete;

  int64_t size() const { return static_cast<int64_t>(header_.count); }
  int64_t vocab_size() const { return vocab_size_; }
  const std::filesystem::path& path() const { return file_.path(); }

  // ids [begin, begin + out.size()) into `out`; the range must lie within size().
  void read(int64_t begin, std::span<TokenId> out) const;
  TokenId id(int64_t position) const;

 private:
  InputFile file_;
  TokenIdFileHeader header_;
  int64_t vocab_size_;
  const unsigned char* map_ = nullptr;  // the whole file, header included
  size_t map_bytes_ = 0;
};

}  // namespace tg::data
