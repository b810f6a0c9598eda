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

// At most `max_bytes` of `text` for an error message: cut at a character boundary and marked
// with "..." when cut, control characters shown as '?'. A message never quotes a whole value.
std::string excerpt(std::string_view text, size_t max_bytes = 40);

}  // namespace tg
