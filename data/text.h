#pragma once
// Text: reading files, and UTF-8, where a character-level token is one Unicode code point
// (1 to 4 bytes), never a byte.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/io/input_file.h"

namespace tg::data {

// Splits `text` into its code points, each as its own UTF-8 string: "né" -> {"n", "é"}.
// Invalid UTF-8 (a stray continuation byte, a truncated sequence, an overlong form, a
// surrogate, a value above U+10FFFF) throws tg::Error("utf8: <source>:<line>: ...") naming
// the byte and its offset; `source` is a file name or a description such as "text".
std::vector<std::string> utf8_chars(std::string_view text, std::string_view source = "text");

// The bytes (1 to 4) of the code point that starts at text[offset]; invalid UTF-8 throws as
// utf8_chars does, counting lines from `first_line` (text is that line of `source`, or starts
// there). For walking a large text without a string per character.
size_t utf8_char_size(std::string_view text, size_t offset, std::string_view source = "text", int64_t first_line = 1);
// Throws as utf8_chars does at the first invalid UTF-8 of `text`.
void check_utf8(std::string_view text, std::string_view source, int64_t first_line = 1);

// The bytes of a file, but a UTF-8 byte order mark at its start (which some editors write: it is
// not part of the text). Errors name the file and what is wrong: missing, unreadable, or not a
// regular file (a directory, a FIFO, ...: core/io/input_file.h).
std::string read_text_file(const std::string& path);
std::string read_text_file(const InputFile& file);

}  // namespace tg::data
