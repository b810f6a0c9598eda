#pragma once
// Helpers for readers of untrusted text (safetensors headers, JSONL data files).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace tg {

// The offset of the first '[' or '{' (outside strings) that opens more than `max_depth` nested
// arrays and objects, if any. A linear scan that recurses into nothing, to run before a JSON
// parser whose values are later walked recursively (dump, copy, compare), which a deeply
// nested text would turn into a stack overflow.
std::optional<size_t> json_too_deep(std::string_view text, int max_depth);

// At most `max_bytes` of `text` for an error message: cut at a character boundary and marked
// with "..." when cut, control characters shown as '?'. A message never quotes a whole value.
std::string excerpt(std::string_view text, size_t max_bytes = 40);

}  // namespace tg
