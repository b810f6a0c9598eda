#pragma once
// The lines of a line-per-record file (.tsv, .jsonl), read a chunk at a time: memory holds one
// line, of at most max_line_bytes, however large the file. A longer line is refused as soon as
// the limit is passed, before the rest of it is read:
//   "read_labelled_file: tags.tsv:3: the line is longer than the limit of 1048576 bytes"
// A byte order mark at the start of the file is not part of its first line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/io/input_file.h"

namespace tg {

class LineReader {
 public:
  // The lines of `file`, from its start; errors are tg::Error(op, "<path>:<line>: ...").
  LineReader(const InputFile& file, const char* op, size_t max_line_bytes);
  // The lines of `text` (already in memory); errors are tg::Error(op, "<source>:<line>: ...").
  LineReader(std::string_view text, const char* op, std::string_view source, size_t max_line_bytes);

  // The next line without its "\n" or "\r\n"; false after the last. The view is valid until the
  // next call.
  bool next(std::string_view& line);
  int64_t line_number() const { return line_number_; }  // of the line next() gave last
  const std::string& source() const { return source_; }  // the file's path, or the text's name
  std::string where() const;                             // "<source>:<line number>"
  // tg::Error(op, "<source>:<line>: <what>"), by default of the line next() gave last.
  [[noreturn]] void fail(const std::string& what) const { fail_at(line_number_, what); }
  [[noreturn]] void fail_at(int64_t line, const std::string& what) const;

 private:
  bool fill();  // reads the next chunk of the file after what is left of the buffer; false at its end

  const InputFile* file_ = nullptr;  // null: the lines of text
  const char* op_;
  std::string source_;
  size_t max_line_bytes_;
  std::string buffer_;     // the file's bytes from offset_ - buffer_.size() to offset_
  std::string_view rest_;  // what no line has given yet: in buffer_, or in the text
  uint64_t offset_ = 0;
  bool at_end_ = false;    // all of the file or text is in rest_
  int64_t line_number_ = 0;
};

// Calls fn(line, where) for each line of `lines` that is a record. Blank lines (nothing but spaces,
// tabs and "\r") at the end of the file (an editor's trailing newline, or a few) are not records;
// a blank line before a record is an error: "<source>:<line>: empty line".
template <class Fn>
void for_each_record_line(LineReader& lines, Fn&& fn) {
  int64_t first_blank = 0;  // the first of the blank lines since the last record (0: none)
  for (std::string_view line; lines.next(line);) {
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      if (first_blank == 0) first_blank = lines.line_number();
      continue;
    }
    if (first_blank != 0) lines.fail_at(first_blank, "empty line");
    fn(line, lines.where());
  }
}

}  // namespace tg
