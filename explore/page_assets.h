#pragma once
// The explorer page's files, compiled in at build time (cmake/embed_files.cmake generates their
// definitions): the template, style and scripts in explore/page/ (common.js: what the lab's
// page shares), the report's attention colours
// (report/page/heatmap.js) and KaTeX's script from Debian's node-katex package.
#include <string_view>

namespace tg::explore {

std::string_view page_template();  // explore/page/explore.html: {{NAME}} slots
std::string_view page_style();     // explore/page/explore.css
std::string_view page_script();    // explore/page/explore.js
std::string_view heatmap_script(); // report/page/heatmap.js: heatmapColour, drawHeatmapScale
std::string_view common_script();  // explore/page/common.js: what the lab's page shares
std::string_view katex_script();   // katex.min.js

}  // namespace tg::explore
