#include "explore/page.h"

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "core/error.h"
#include "core/io/page_text.h"
#include "explore/page_assets.h"

namespace tg::explore {

namespace {

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((std::filesystem::path(dir) / program).c_str(), X_OK) == 0) return true;
  return false;
}

// A unique temporary file, removed when this goes out of scope.
class TempFile {
 public:
  explicit TempFile(const std::string& contents) {
    std::string name = (std::filesystem::temp_directory_path() / "tapegrad-explore-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw Error("explore", "cannot create a temporary file for Graphviz's input");
    ::close(fd);
    path_ = name;
    std::ofstream out(path_, std::ios::binary);
    if (!(out << contents)) throw Error("explore", fmt::format("cannot write {}", path_.string()));
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

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
  if (!on_path("dot"))
    throw Error("explore", "Graphviz's dot program is not on PATH; it lays out the tape's graph: install the "
                           "graphviz package (apt-get install graphviz)");
  const TempFile input(dot_source);
  const std::string command = fmt::format("dot -Tsvg '{}' 2>&1", input.path().string());
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) throw Error("explore", "cannot run Graphviz's dot");
  std::string svg;
  std::array<char, 65536> buffer;
  for (size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe.get())) > 0;) svg.append(buffer.data(), n);
  const int status = ::pclose(pipe.release());
  if (status != 0) throw Error("explore", fmt::format("Graphviz's dot failed (status {}): {}", status, svg));
  const size_t start = svg.find("<svg");  // drop the XML prolog and DOCTYPE: the SVG goes inline
  if (start == std::string::npos) throw Error("explore", "Graphviz's dot wrote no SVG");
  return svg.substr(start);
}

std::string page_html(const nlohmann::json& recording) {
  return fill(page_template(), {{"TITLE", html_text(recording.value("title", "tapegrad explore"))},
                              {"STYLE", std::string(page_style())},
                              {"GRAPH", render_svg(top_to_bottom(recording.at("dot").get<std::string>()))},
                              {"DATA", script_json(recording)},
                              {"KATEX", script_safe(katex_script())},
                              {"SCRIPT", script_safe(page_script())}});
}

void write_page(const std::filesystem::path& file, const nlohmann::json& recording) {
  const std::string html = page_html(recording);
  std::ofstream out(file, std::ios::binary);
  if (!(out << html) || !out.flush()) throw Error("explore", fmt::format("cannot write the page {}", file.string()));
}

}  // namespace tg::explore
