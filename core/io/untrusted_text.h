#pragma once
// Helpers for readers of untrusted text (safetensors headers, JSONL data files).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace tg {

// Calls fn(line, where) for each line of a line-per-record file's `content`, without its "\n" or
// "\r\n", up to the last line that is not blank: blank lines at the end (an editor's trailing
// newline, or a few) are not records. `where` is "source:line_number", for error messages.
template <class Fn>
void for_each_record_line(std::string_view content, std::string_view source, Fn&& fn) {
  const size_t last_char = content.find_last_not_of(" \t\r\n");
  if (last_char == std::string_view::npos) return;
  content = content.substr(0, content.find('\n', last_char));  // to the end of the last line that is not blank
  size_t start = 0;
  for (int64_t line_number = 1; start < content.size(); ++line_number) {
    size_t end = content.find('\n', start);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(start, end - start);
    start = end + 1;
    if (line.ends_with('\r')) line.remove_suffix(1);
    fn(line, fmt::format("{}:{}", source, line_number));
  }
}

// The offset of the first '[' or '{' (outside strings) that opens more than `max_depth` nested
// arrays and objects, if any. A linear scan that recurses into nothing, to run before a JSON
// parser whose values are later walked recursively (dump, copy, compare), which a deeply
// nested text would turn into a stack overflow.
std::optional<size_t> json_too_deep(std::string_view text, int max_depth);

// Text from a file as it may reach a terminal or a page: every character that would act
// instead of being shown, or would reorder the text around it, made visible as an escape, so
// that data cannot move the cursor, retitle or clear the terminal, or reverse a line:
//   C0 controls and DEL        \x1B  (\n, \t and \r by name)
//   C1 controls U+0080-U+009F  \u009B
//   bidirectional controls     \u202E  (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069)
//   bytes that are not UTF-8   \xFF
// Everything else, backslashes included, is left as it is: the result is for reading, not for
// reading back. With LineBreaks::keep, "\n" and "\t" stay as they are (a text's own lines).
// Terminals get it from visible_text, pages from core/io/page_text.h.
enum class LineBreaks { keep, escape };
std::string visible_text(std::string_view text, LineBreaks line_breaks = LineBreaks::escape);

// At most `max_bytes` of `text` for an error message: cut at a character boundary and marked
// with "..." when cut, as visible_text shows it. A message never quotes a whole value.
std::string excerpt(std::string_view text, size_t max_bytes = 40);

}  // namespace tg
