#include "data/text.h"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/untrusted_text.h"

namespace tg::data {

namespace {

[[noreturn]] void invalid(std::string_view text, std::string_view source, int64_t first_line, size_t offset,
                          const char* why) {
  auto line = first_line + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n');
  throw Error("utf8", fmt::format("{}:{}: invalid UTF-8: {} (byte 0x{:02x} at offset {})", source, line, why,
                                  static_cast<uint8_t>(text[offset]), offset));
}

}  // namespace

size_t utf8_char_size(std::string_view text, size_t i, std::string_view source, int64_t first_line) {
  const auto fail = [&](size_t at, const char* why) { invalid(text, source, first_line, at, why); };
  const auto lead = static_cast<uint8_t>(text[i]);
  // The lead byte gives the length and the first bits of the code point.
  size_t len = 0;
  uint32_t cp = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) len = 2, cp = lead & 0x1Fu;
  else if ((lead & 0xF0) == 0xE0) len = 3, cp = lead & 0x0Fu;
  else if ((lead & 0xF8) == 0xF0) len = 4, cp = lead & 0x07u;
  else fail(i, (lead & 0xC0) == 0x80 ? "a continuation byte without a lead byte" : "not a lead byte");
  if (i + len > text.size()) fail(i, "the sequence is cut off by the end of the text");
  for (size_t k = 1; k < len; ++k) {
    const auto next = static_cast<uint8_t>(text[i + k]);
    if ((next & 0xC0) != 0x80) fail(i + k, "expected a continuation byte");
    cp = (cp << 6) | (next & 0x3Fu);
  }
  static constexpr uint32_t kSmallest[5] = {0, 0, 0x80, 0x800, 0x10000};  // by length
  if (cp < kSmallest[len]) fail(i, "an overlong encoding");
  if (cp >= 0xD800 && cp <= 0xDFFF) fail(i, "a UTF-16 surrogate");
  if (cp > 0x10FFFF) fail(i, "a code point above U+10FFFF");
  return len;
}

void check_utf8(std::string_view text, std::string_view source, int64_t first_line) {
  for (size_t i = 0; i < text.size(); i += utf8_char_size(text, i, source, first_line)) {
  }
}

std::vector<std::string> utf8_chars(std::string_view text, std::string_view source) {
  std::vector<std::string> chars;
  for (size_t i = 0, len; i < text.size(); i += len) {
    len = utf8_char_size(text, i, source);
    chars.emplace_back(text.substr(i, len));
  }
  return chars;
}

std::string read_text_file(const std::string& path) { return read_text_file(InputFile("read_text_file", path)); }

std::string read_text_file(const InputFile& file) {
  std::string text = file.read_all();
  if (std::string_view(text).starts_with(kUtf8ByteOrderMark)) text.erase(0, kUtf8ByteOrderMark.size());
  return text;
}

}  // namespace tg::data
