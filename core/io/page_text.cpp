#include "core/io/page_text.h"

namespace tg {

std::string html_text(std::string_view text) {
  std::string out;
  for (char c : visible_text(text)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_safe_json(std::string_view json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (size_t i = 0; i < json_text.size(); ++i) {
    const char c = json_text[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (json_text.substr(i, 3) == "\u2028") out += "\\u2028", i += 2;
    else if (json_text.substr(i, 3) == "\u2029") out += "\\u2029", i += 2;
    else out += c;
  }
  return out;
}

}  // namespace tg
