#pragma once
// Data on a page (report.html, explore's pages): shown as text, never read as markup or
// script, and with what visible_text escapes (controls, bidirectional controls, bytes that are
// not UTF-8) shown as its escape, so that a token cannot reverse the text around it either.
//
//   html_text(text)     an element's text or an attribute's value
//   script_json(value)  a JSON value for a <script type="application/json"> element, which the
//                       page's script reads with JSON.parse
#include <string>
#include <string_view>

#include "core/io/untrusted_text.h"

namespace tg {

// visible_text, then & < > " as character references.
std::string html_text(std::string_view text);

// JSON text (UTF-8, as a JSON library writes it) with every '<', '>' and '&' and the line
// separators U+2028 and U+2029 written as \u escapes: no data can end the element
// ("</script>") or open a comment ("<!--", after which a "<script>" would swallow the page's
// own scripts). They occur only inside strings, where the escape means the same character.
std::string script_safe_json(std::string_view json_text);

// Every string in `value` (a nlohmann::json or ordered_json, any depth) as visible_text shows it,
// its line breaks kept.
template <class Json> void make_strings_visible(Json& value) {
  if (value.is_string()) {
    value = visible_text(value.template get_ref<const std::string&>(), LineBreaks::keep);
  } else if (value.is_structured()) {
    for (auto& child : value) make_strings_visible(child);
  }
}

// `value` as the text of a <script type="application/json"> element.
template <class Json> std::string script_json(Json value) {
  make_strings_visible(value);
  return script_safe_json(value.dump());
}

}  // namespace tg
