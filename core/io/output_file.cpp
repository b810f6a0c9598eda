#include "core/io/output_file.h"

#include <system_error>

#include <fmt/format.h>

#include "core/error.h"

namespace tg {

AtomicTextFile::AtomicTextFile(const char* op, std::filesystem::path path)
    : op_(op), path_(std::move(path)), temp_(std::filesystem::path(path_) += ".tmp") {
  out_.open(temp_, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!out_) throw Error(op_, fmt::format("{}: cannot create {}", path_.string(), temp_.string()));
}

AtomicTextFile::~AtomicTextFile() {
  if (committed_) return;
  out_.close();
  std::error_code ignored;
  std::filesystem::remove(temp_, ignored);
}

void AtomicTextFile::commit() {
  out_.close();
  if (!out_) throw Error(op_, fmt::format("{}: writing {} failed", path_.string(), temp_.string()));
  std::error_code ec;
  std::filesystem::rename(temp_, path_, ec);
  if (ec) throw Error(op_, fmt::format("{}: cannot rename {} over it: {}", path_.string(), temp_.string(), ec.message()));
  committed_ = true;
}

}  // namespace tg
