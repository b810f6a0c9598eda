// Text from files on its way to a terminal (visible_text, excerpt) or a page (html_text,
// script_json): whatever would act instead of being shown is shown as an escape.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "core/io/page_text.h"
#include "core/io/untrusted_text.h"

using namespace tg;

namespace {

// A title change, a screen clear and a right-to-left override, as a hostile token holds them.
const std::string kHostile = "\x1b]0;TITLE\x07\x1b[2J\xe2\x80\xae" "abc";

}  // namespace

TEST_CASE("visible_text: controls, C1, bidirectional controls and bytes that are not UTF-8 shown as escapes") {
  CHECK(visible_text(kHostile) == "\\x1B]0;TITLE\\x07\\x1B[2J\\u202Eabc");
  CHECK(visible_text(std::string("a\0b", 3)) == "a\\x00b");
  CHECK(visible_text("del\x7f") == "del\\x7F");
  CHECK(visible_text("\xc2\x9b" "31m") == "\\u009B31m");  // C1 CSI
  for (const char* bidi : {"\u061c", "\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066",
                           "\u2067", "\u2068", "\u2069"}) {
    CAPTURE(bidi);
    CHECK(visible_text(bidi).starts_with("\\u"));
  }
  CHECK(visible_text("\xff" "ok\xc3") == "\\xFFok\\xC3");       // a stray byte, a truncated character
  CHECK(visible_text("\xc0\xaf") == "\\xC0\\xAF");              // an overlong '/'
  CHECK(visible_text("\xed\xa0\x80") == "\\xED\\xA0\\x80");     // a surrogate
  CHECK(visible_text("caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82 \\x1B") ==
        "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x99\x82 \\x1B");  // text, even a written-out escape, as it is
  CHECK(visible_text("a\tb\nc\r") == "a\\tb\\nc\\r");
  CHECK(visible_text("a\tb\nc\r", LineBreaks::keep) == "a\tb\nc\\r");
}

TEST_CASE("excerpt: a value quoted in a message is cut and shown as visible_text shows it") {
  CHECK(excerpt(kHostile) == visible_text(kHostile));
  CHECK(excerpt("line\nbreak") == "line\\nbreak");
  CHECK(excerpt(std::string(50, 'x') + "\x1b", 40) == std::string(40, 'x') + "...");
}

TEST_CASE("html_text and script_json: data on a page is text, visible, and cannot end or comment out a script") {
  CHECK(html_text("<b>&\"" + kHostile) == "&lt;b&gt;&amp;&quot;\\x1B]0;TITLE\\x07\\x1B[2J\\u202Eabc");

  const nlohmann::json data = {{"tokens", {"<!--<script>", "</script>", kHostile, "a&b>c", "\xe2\x80\xa8"}},
                               {"text", "two\nlines"}};
  const std::string text = script_json(data);
  CHECK(text.find('<') == std::string::npos);
  CHECK(text.find('>') == std::string::npos);
  CHECK(text.find('&') == std::string::npos);
  CHECK(text.find("\xe2\x80\xa8") == std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);
  const nlohmann::json back = nlohmann::json::parse(text);  // what the page's JSON.parse reads
  CHECK(back["tokens"][0] == "<!--<script>");
  CHECK(back["tokens"][1] == "</script>");
  CHECK(back["tokens"][2] == "\\x1B]0;TITLE\\x07\\x1B[2J\\u202Eabc");
  CHECK(back["tokens"][3] == "a&b>c");
  CHECK(back["text"] == "two\nlines");
  CHECK(script_json(nlohmann::json("\xff")) == "\"\\\\xFF\"");  // not UTF-8: shown, and the JSON stays valid
}
