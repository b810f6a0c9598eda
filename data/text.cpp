#include "data/text.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/input_file.h"

namespace tg::data {

namespace {

[[noreturn]] void invalid(std::string_view text, std::string_view source, size_t offset, const char* why) {
  auto line = 1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  throw Error("utf8", fmt::format("{}:{}: invalid UTF-8: {} (byte 0x{:02x} at offset {})", source, line, why,
                                  static_cast<uint8_t>(text[offset]), offset));
}

}  // namespace

std::vector<std::string> utf8_chars(std::string_view text, std::string_view source) {
  std::vector<std::string> chars;
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<uint8_t>(text[i]);
    // The lead byte gives the length and the first bits of the code point.
    size_t len = 0;
    uint32_t cp = 0;
    if (lead < 0x80) len = 1, cp = lead;
    else if ((lead & 0xE0) == 0xC0) len = 2, cp = lead & 0x1Fu;
    else if ((lead & 0xF0) == 0xE0) len = 3, cp = lead & 0x0Fu;
    else if ((lead & 0xF8) == 0xF0) len = 4, cp = lead & 0x07u;
    else invalid(text, source, i, (lead & 0xC0) == 0x80 ? "a continuation byte without a lead byte" : "not a lead byte");
    if (i + len > text.size()) invalid(text, source, i, "the sequence is cut off by the end of the text");
    for (size_t k = 1; k < len; ++k) {
      const auto next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) invalid(text, source, i + k, "expected a continuation byte");
      cp = (cp << 6) | (next & 0x3Fu);
    }
    static constexpr uint32_t kSmallest[5] = {0, 0, 0x80, 0x800, 0x10000};  // by length
    if (cp < kSmallest[len]) invalid(text, source, i, "an overlong encoding");
    if (cp >= 0xD800 && cp <= 0xDFFF) invalid(text, source, i, "a UTF-16 surrogate");
    if (cp > 0x10FFFF) invalid(text, source, i, "a code point above U+10FFFF");
    chars.emplace_back(text.substr(i, len));
    i += len;
  }
  return chars;
}

std::string read_text_file(const std::string& path) { return InputFile("read_text_file", path).read_all(); }

}  // namespace tg::data
