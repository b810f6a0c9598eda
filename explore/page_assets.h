#pragma once
// The explorer page's files, inlined at build time (explore/CMakeLists.txt generates their
// definitions): the template, style and script in explore/page/, and KaTeX's script from
// Debian's node-katex package.
#include <string_view>

namespace tg::explore {

extern const std::string_view kPageTemplate;  // explore/page/explore.html: {{NAME}} slots
extern const std::string_view kPageStyle;     // explore/page/explore.css
extern const std::string_view kPageScript;    // explore/page/explore.js
extern const std::string_view kKatexScript;   // katex.min.js

}  // namespace tg::explore
