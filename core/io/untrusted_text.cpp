#include "core/io/untrusted_text.h"

#include <iterator>

#include <fmt/format.h>

namespace tg {

namespace {

// The UTF-8 character at the start of `s`: its code point and length in bytes, or length 0 when
// the bytes there are not one (a stray continuation byte, a truncated or overlong sequence, a
// surrogate, a value above U+10FFFF).
struct Utf8Char {
  char32_t code;
  size_t length;
};

Utf8Char first_utf8_char(std::string_view s) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  char32_t code = 0, smallest = 0;
  if ((lead & 0xE0) == 0xC0) length = 2, code = lead & 0x1F, smallest = 0x80;
  else if ((lead & 0xF0) == 0xE0) length = 3, code = lead & 0x0F, smallest = 0x800;
  else if ((lead & 0xF8) == 0xF0) length = 4, code = lead & 0x07, smallest = 0x10000;
  else return {0, 0};
  if (s.size() < length) return {0, 0};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {0, 0};
    code = (code << 6) | (byte(i) & 0x3F);
  }
  if (code < smallest || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {0, 0};
  return {code, length};
}

// The characters that change the direction of the text around them (Unicode's Bidi_Control).
bool is_bidi_control(char32_t c) {
  return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

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

std::string visible_text(std::string_view text, LineBreaks line_breaks) {
  std::string out;
  out.reserve(text.size());
  const auto to = std::back_inserter(out);
  for (size_t i = 0; i < text.size();) {
    const auto [code, length] = first_utf8_char(text.substr(i));
    if (length == 0) {
      fmt::format_to(to, "\\x{:02X}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    const auto number = static_cast<uint32_t>(code);
    if ((code == '\n' || code == '\t') && line_breaks == LineBreaks::keep) out += static_cast<char>(code);
    else if (code == '\n') out += "\\n";
    else if (code == '\t') out += "\\t";
    else if (code == '\r') out += "\\r";
    else if (code < 0x20 || code == 0x7F) fmt::format_to(to, "\\x{:02X}", number);
    else if ((code >= 0x80 && code <= 0x9F) || is_bidi_control(code)) fmt::format_to(to, "\\u{:04X}", number);
    else out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string excerpt(std::string_view text, size_t max_bytes) {
  const bool cut = text.size() > max_bytes;
  if (cut) {
    size_t end = max_bytes;
    while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;  // not inside a character
    text = text.substr(0, end);
  }
  const std::string shown = visible_text(text);
  return cut ? shown + "..." : shown;
}

}  // namespace tg
