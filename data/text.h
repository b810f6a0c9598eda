#pragma once
// Text: reading files, and UTF-8, where a character-level token is one Unicode code point
// (1 to 4 bytes), never a byte.
#include <string>
#include <string_view>
#include <vector>

namespace tg::data {

// Splits `text` into its code points, each as its own UTF-8 string: "né" -> {"n", "é"}.
// Invalid UTF-8 (a stray continuation byte, a truncated sequence, an overlong form, a
// surrogate, a value above U+10FFFF) throws tg::Error("utf8: <source>:<line>: ...") naming
// the byte and its offset; `source` is a file name or a description such as "text".
std::vector<std::string> utf8_chars(std::string_view text, std::string_view source = "text");

// The bytes of a file. Errors name the file and what is wrong: missing, unreadable, or not a
// regular file (a directory, a FIFO, ...: core/io/input_file.h).
std::string read_text_file(const std::string& path);

}  // namespace tg::data
