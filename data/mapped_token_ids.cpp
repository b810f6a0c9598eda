#include "data/mapped_token_ids.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/error.h"

namespace tg::data {

namespace {

// The most of a file mapping one read fault maps: Linux maps the cached neighbours of the page
// too (fault-around, 64 KiB by default), or the whole large folio the page cache holds it in
// (up to a PMD, 2 MiB), aligned.
constexpr uint64_t kFaultBlockBytes = uint64_t{2} << 20;

constexpr const char* kMappedTokenIdsOp = "token ids";

// Maps the file InputFile checked, read-only. InputFile does not lend its descriptor, so the
// path is opened again (with InputFile's flags); a file swapped in between shows as another
// size or another header, and is refused.
const unsigned char* map_checked_file(const InputFile& file) {
  const int fd = ::open(file.path().c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    const int err = errno;
    file.fail(fmt::format("cannot open to map: {}", std::strerror(err)));
  }
  struct stat st {};
  const bool same_size =
      ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) == file.size();
  void* map = same_size ? ::mmap(nullptr, file.size(), PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  const int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (!same_size) file.fail("changed while it was being opened");
  if (map == MAP_FAILED) file.fail(fmt::format("cannot map: {}", std::strerror(err)));
  // Random windows: no read-ahead around each fault (it would bring in pages no window asked for).
  ::madvise(map, file.size(), MADV_RANDOM);
  const auto* bytes = static_cast<const unsigned char*>(map);
  std::vector<unsigned char> header(kTokenIdHeaderBytes);
  file.read_at(header.data(), header.size(), 0);
  if (std::memcmp(bytes, header.data(), header.size()) != 0) {
    ::munmap(map, file.size());
    file.fail("changed while it was being opened");
  }
  return bytes;
}

}  // namespace

MappedTokenIds::MappedTokenIds(const std::filesystem::path& path, const std::string& tokenizer_sha256,
                               int64_t vocab_size)
    : file_(kMappedTokenIdsOp, path), header_(read_token_id_header(file_)), vocab_size_(vocab_size) {
  check_token_id_tokenizer(file_, header_, tokenizer_sha256);
  if (vocab_size < 1) file_.fail(fmt::format("the vocabulary must hold at least 1 token, got {}", vocab_size));
  map_ = map_checked_file(file_);
  map_bytes_ = file_.size();
}

MappedTokenIds::~MappedTokenIds() { ::munmap(const_cast<unsigned char*>(map_), map_bytes_); }

void MappedTokenIds::read(int64_t begin, std::span<TokenId> out) const {
  const auto n = static_cast<int64_t>(out.size());
  if (begin < 0 || n > size() || begin > size() - n)
    throw Error(kMappedTokenIdsOp, fmt::format("{}: ids [{}, {}) are out of range for its {} ids", path().string(), begin,
                                 begin + n, size()));
  const unsigned char* ids = map_ + kTokenIdHeaderBytes;
  for (int64_t i = 0; i < n; ++i)
    out[static_cast<size_t>(i)] =
        token_id_at(file_, ids, header_.id_bytes, static_cast<uint64_t>(begin + i), vocab_size_);
  // Drop the touched pages from this process's page tables (see the header): the whole aligned
  // block a fault may have mapped around the range (kFaultBlockBytes).
  const uint64_t first = kTokenIdHeaderBytes + static_cast<uint64_t>(begin) * header_.id_bytes;
  const uint64_t end = first + static_cast<uint64_t>(n) * header_.id_bytes;
  const uint64_t from = first / kFaultBlockBytes * kFaultBlockBytes;
  const uint64_t to = std::min<uint64_t>((end + kFaultBlockBytes - 1) / kFaultBlockBytes * kFaultBlockBytes,
                                         map_bytes_);
  ::madvise(const_cast<unsigned char*>(map_) + from, to - from, MADV_DONTNEED);
}

TokenId MappedTokenIds::id(int64_t position) const {
  TokenId out = 0;
  read(position, std::span<TokenId>(&out, 1));
  return out;
}

}  // namespace tg::data
