#pragma once
// Sequence-to-sequence pairs from your own files: an input string and an output string per line,
// of any lengths (up to kMaxSeq2SeqChars characters each), UTF-8; characters are the tokens.
//
//   TSV    12+345<TAB>357                          the text before the one tab, and after it
//   JSONL  {"input": "12+345", "output": "357"}    two JSON strings
//
// Both sides must be non-empty. A malformed line (a missing or second tab, bad JSON, a key twice
// in one object, a missing or non-string field, an empty side, a side longer than the limit, a
// line longer than kMaxLineBytes, an empty line) throws tg::Error naming the file, the line,
// the field and the limit:
//   "read_seq2seq_file: pairs.tsv:3: output has 1025 characters, more than the limit of 1024".
// Blank lines at the end of a file are allowed; a byte order mark at its start is not text.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/labelled_file.h"
#include "data/seq2seq_tasks.h"

namespace tg::data {

// The most characters (code points) an input or an output may have.
inline constexpr int64_t kMaxSeq2SeqChars = 1024;

// Parses file contents; `source` names them in errors (the file name).
std::vector<Seq2SeqPair> parse_seq2seq(std::string_view content, FileFormat format, std::string_view source);
// Reads and parses a file (format from its name: .tsv or .jsonl). A file without pairs throws.
std::vector<Seq2SeqPair> read_seq2seq_file(const std::string& path);
std::vector<Seq2SeqPair> read_seq2seq_file(const InputFile& file);

}  // namespace tg::data
