#include "explore/page.h"

#include <fstream>
#include <map>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/output_file.h"
#include "core/io/page_text.h"
#include "core/io/run_program.h"
#include "explore/page_assets.h"

namespace tg::explore {

namespace {

// `text` with each {{NAME}} replaced by slots.at(NAME), in one pass (inserted text is not scanned).
std::string fill(std::string_view text, const std::map<std::string, std::string>& slots) {
  std::string out;
  for (size_t at = 0;;) {
    const size_t open = text.find("{{", at);
    if (open == std::string_view::npos) return out.append(text.substr(at));
    const size_t close = text.find("}}", open);
    const std::string name(text.substr(open + 2, close - open - 2));
    out.append(text.substr(at, open - at)).append(slots.at(name));
    at = close + 2;
  }
}

// The page's own script inside <script>: "</" could close the element early ("<\/" means the
// same in JavaScript strings). The data goes in as page_text.h's script_json.
std::string script_safe(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') out += '\\';
  }
  return out;
}

// The page scrolls the graph vertically: Tape::to_dot's left-to-right chain would be a long
// strip for a whole model, so the page lays it out top to bottom.
std::string top_to_bottom(std::string dot) {
  if (const size_t at = dot.find("rankdir=LR"); at != std::string::npos) dot.replace(at, 10, "rankdir=TB");
  return dot;
}

}  // namespace

std::string render_svg(const std::string& dot_source) {
  const std::string svg = run_program("explore", {"dot", "-Tsvg"}, dot_source,
                                      "Graphviz's dot lays out the tape's graph: install the graphviz package "
                                      "(apt-get install graphviz)");
  const size_t start = svg.find("<svg");  // drop the XML prolog and DOCTYPE: the SVG goes inline
  if (start == std::string::npos) throw Error("explore", "Graphviz's dot wrote no SVG");
  return svg.substr(start);
}

namespace {

// Each module group's own graph, laid out by dot: "first-last" -> its SVG.
nlohmann::json group_graphs(const nlohmann::json& recording) {
  nlohmann::json svgs = nlohmann::json::object();
  for (const nlohmann::json& group : recording.value("groups", nlohmann::json::array()))
    svgs[fmt::format("{}-{}", group.at("first").get<int64_t>(), group.at("last").get<int64_t>())] =
        render_svg(top_to_bottom(group.at("dot").get<std::string>()));
  return svgs;
}

}  // namespace

std::string page_html(const nlohmann::json& recording) {
  return fill(page_template(), {{"TITLE", html_text(recording.value("title", "tapegrad explore"))},
                              {"STYLE", std::string(page_style())},
                              {"GRAPH", render_svg(top_to_bottom(recording.at("dot").get<std::string>()))},
                              {"DATA", script_json(recording)},
                              {"GROUP_GRAPHS", script_json(group_graphs(recording))},
                              {"KATEX", script_safe(katex_script())},
                              {"HEATMAP", script_safe(heatmap_script())},
                              {"COMMON", script_safe(common_script())},
                              {"SCRIPT", script_safe(page_script())}});
}

void write_page(const std::filesystem::path& file, const nlohmann::json& recording) {
  write_file_atomically("explore", file, page_html(recording));
}

}  // namespace tg::explore
