#pragma once
// The explorer's page: ONE self-contained HTML file (no server, no network: the script, the
// style, KaTeX and the data are inlined) showing a recording (explore/recording.h).
//
//   recording["title"], ["description"]: shown at the top (set by the caller)
//   recording["attention"] (optional): [{"layer", "head", "queries": [token], "keys": [token],
//                                        "weights": summary}] heatmaps labelled with the tokens
//
// The tape's graph is laid out by Graphviz at export time: recording["dot"] is piped through
// `dot -Tsvg` (Debian's graphviz package; core/io/run_program.h, no shell), whose SVG the page
// makes clickable.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace tg::explore {

// The SVG Graphviz's dot draws for `dot_source`; a tg::Error naming the graphviz package when
// dot is not on PATH, and one with dot's message when it fails.
std::string render_svg(const std::string& dot_source);

// The page's HTML for `recording` (its "dot" rendered by render_svg).
std::string page_html(const nlohmann::json& recording);

// Writes page_html(recording) to `file`; a tg::Error naming the file when it cannot.
void write_page(const std::filesystem::path& file, const nlohmann::json& recording);

}  // namespace tg::explore
