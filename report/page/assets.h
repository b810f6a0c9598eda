#pragma once
// The files report.html is made of, compiled into tapegrad_report: cmake/embed_files.cmake
// generates their definitions at build time, so a run reads none of them.
#include <string_view>

namespace tg::report::page {

std::string_view chart_js();    // Chart.js 3, from Debian's libjs-chart.js (chart.min.js)
std::string_view page_html();   // page.html: the template, with @TITLE@, @STYLE@, @SCRIPTS@ and @DATA@
std::string_view page_css();    // page.css
std::string_view heatmap_js();  // heatmap.js: one attention map on a <canvas>
std::string_view report_js();   // report.js: the charts, heatmaps and tables, from the page's data

}  // namespace tg::report::page
