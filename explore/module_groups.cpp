#include "explore/module_groups.h"

#include <algorithm>
#include <cctype>

namespace tg::explore {

std::vector<std::string> module_levels(const std::string& path) {
  std::vector<std::string> levels;
  size_t start = 0;
  while (start <= path.size() && !path.empty()) {
    const size_t dot = std::min(path.find('.', start), path.size());
    const std::string part = path.substr(start, dot - start);
    const bool index = !part.empty() && std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c); });
    if (index && !levels.empty())
      levels.back() += "." + part;
    else
      levels.push_back(part);
    start = dot + 1;
  }
  return levels;
}

std::vector<ModuleGroup> module_groups(const std::vector<int64_t>& positions, const std::vector<std::string>& modules) {
  std::vector<ModuleGroup> groups;
  std::vector<size_t> open;  // indices into groups: the groups the last entry was in, outermost first
  std::vector<std::string> open_levels;
  for (size_t i = 0; i < positions.size(); ++i) {
    const std::vector<std::string> levels = module_levels(modules[i]);
    size_t same = 0;
    while (same < levels.size() && same < open_levels.size() && open_levels[same] == levels[same]) ++same;
    open.resize(same);
    open_levels.resize(same);
    for (size_t depth = same; depth < levels.size(); ++depth) {
      const std::string path = depth == 0 ? levels[0] : groups[open.back()].path + "." + levels[depth];
      open.push_back(groups.size());
      open_levels.push_back(levels[depth]);
      groups.push_back({levels[depth], path, positions[i], positions[i]});
    }
    for (size_t g : open) groups[g].last = positions[i];
  }
  return groups;
}

}  // namespace tg::explore
