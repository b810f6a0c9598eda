#pragma once
// A directory of files written whole or not at all (tapegrad export): the files go into a new
// directory with a unique name beside `path` ("<name>.tmp-<random>", made with mkdirat, which
// never follows a link), written each through an OutputFile; commit() puts it in place of
// `path` in one step: renameat2(RENAME_EXCHANGE) with an earlier directory there, then the
// earlier one is removed. (Where the file system cannot exchange, the earlier directory is
// renamed aside first: for a moment there is none, never a mix of old and new files.)
// Destroyed without commit(), it removes the new directory and `path` is as it was. The
// directories `path` goes in are created if missing.
//
// What may be replaced is narrow, since the whole directory goes: nothing at `path`, or a
// directory holding only entries named in `replaceable` (an earlier output of the same kind).
// A link, a file, or a directory holding anything else is refused, naming it.
#include <filesystem>
#include <string>
#include <vector>

#include "core/io/output_file.h"

namespace tg {

class OutputDirectory {
 public:
  OutputDirectory(const char* op, std::filesystem::path path, std::vector<std::string> replaceable);
  ~OutputDirectory();
  OutputDirectory(const OutputDirectory&) = delete;
  OutputDirectory& operator=(const OutputDirectory&) = delete;

  // Where to write the file `name` of the directory (with an OutputFile) before commit().
  std::filesystem::path file(const std::string& name) const { return temp_path_ / name; }
  void commit();

 private:
  void check_replaceable() const;
  [[noreturn]] void fail_rename(const char* step) const;  // with errno's text

  const char* op_;
  std::filesystem::path path_;
  std::vector<std::string> replaceable_;
  ParentDirectory parent_;
  std::filesystem::path temp_path_;
  bool committed_ = false;
};

}  // namespace tg
