#pragma once
// Helpers for readers of untrusted text (safetensors headers, JSONL data files).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// The UTF-8 byte order mark that some editors write at the start of a file: not part of its text.
inline constexpr std::string_view kUtf8ByteOrderMark = "\xEF\xBB\xBF";

// The offset of the first '[' or '{' (outside strings) that opens more than `max_depth` nested
// arrays and objects, if any. A linear scan that recurses into nothing, to run before a JSON
// parser whose values are later walked recursively (dump, copy, compare), which a deeply
// nested text would turn into a stack overflow.
std::optional<size_t> json_too_deep(std::string_view text, int max_depth);

// The keys of the JSON objects open in a SAX parse (nlohmann::json_sax), to refuse a key that
// appears twice in one object: a parser building a tree would silently keep one of the values.
class JsonObjectKeys {
 public:
  void open() { open_.emplace_back(); }
  void close() { open_.pop_back(); }
  // False when `key` is already a key of the innermost open object.
  bool add(const std::string& key) { return open_.back().insert(key).second; }
  size_t depth() const { return open_.size(); }  // objects open

 private:
  std::vector<std::set<std::string>> open_;
};

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
