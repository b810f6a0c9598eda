#pragma once
// Sequence-to-sequence pairs from your own files: an input and an output per line, UTF-8, each
// side a sequence of tokens (data/seq2seq_tokenizer.h). A side is given as text or, in JSONL, as a
// list of tokens:
//
//   TSV    12+345<TAB>357                                  the text before the one tab, and after it
//   JSONL  {"input": "12+345", "output": "357"}            two JSON strings
//   JSONL  {"input": ["three", "one"], "output": ["1", "3"]}   two lists of tokens (strings or numbers,
//                                                          a number being its text as written)
//
// A text side's tokens depend on the run's token separator (token_sep, `train --token-sep`):
// without one (the default) they are its characters; with one, the non-empty pieces between
// separators ("three  one " is "three", "one"). A list is its tokens whatever the separator, and a
// run whose tokens are characters takes only lists of single characters. One file gives every
// side in one form, the form of its first pair's input: a string where the file gives lists, or a
// list where it gives strings, is an error naming the line.
//
// Each pair is returned as text in the run's form: a side's tokens joined by the separator (the
// text as given, for characters). So a list's token may not contain the separator, and with a
// separator the reserved names of data/vocab.h (<pad> <unk> <bos> <sep> <mask>) are refused as
// tokens: they are the vocabulary's own, which the model writes or reads as markers.
//
// A malformed line (a missing or second tab, bad JSON, a key twice in one object, a missing field
// or one of another type, a side without tokens, an empty list item, a side of more than
// kMaxSeq2SeqTokens tokens, a token longer than kMaxSeq2SeqTokenBytes, a line longer than
// kMaxLineBytes, an empty line) throws tg::Error naming the file, the line, the field and the limit:
//   "read_seq2seq_file: pairs.tsv:3: output has 1025 characters, more than the limit of 1024"
//   "read_seq2seq_file: pairs.jsonl:7: input[2] has 300 bytes, more than the limit of 256"
// Blank lines at the end of a file are allowed; a byte order mark at its start is not text.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "data/labelled_file.h"
#include "data/seq2seq_tasks.h"

namespace tg::data {

// The most tokens (characters, for a run without a separator) an input or an output may have.
inline constexpr int64_t kMaxSeq2SeqTokens = 1024;
// The most bytes a token may have (a character has at most 4).
inline constexpr int64_t kMaxSeq2SeqTokenBytes = 256;

// Parses file contents; `source` names them in errors (the file name).
std::vector<Seq2SeqPair> parse_seq2seq(std::string_view content, FileFormat format, std::string_view source,
                                       std::string_view token_sep = "");
// Reads and parses a file (format from its name: .tsv or .jsonl). A file without pairs throws.
std::vector<Seq2SeqPair> read_seq2seq_file(const std::string& path, std::string_view token_sep = "");
std::vector<Seq2SeqPair> read_seq2seq_file(const InputFile& file, std::string_view token_sep = "");

// Whether a pair file gives token lists: its first pair's input is a list (false for a .tsv file
// or one without pairs). Reads no further than that pair.
bool pair_file_gives_lists(const InputFile& file);

}  // namespace tg::data
