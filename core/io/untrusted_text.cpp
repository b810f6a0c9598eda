#include "core/io/untrusted_text.h"

namespace tg {

std::optional<size_t> json_too_deep(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // the escaped character cannot end the string
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if (c == ']' || c == '}') {
      --depth;  // below zero only in invalid JSON, which the parser rejects
    }
  }
  return std::nullopt;
}

std::string excerpt(std::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  if (cut) {
    size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
    text = text.substr(0, end);
  }
  std::string out(text);
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  return cut ? out + "..." : out;
}

}  // namespace tg
