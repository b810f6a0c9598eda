#pragma once
// A recorded tape's module groups, as the pages nest them (explore/page/common.js,
// fillGroupedTape): a run of consecutive entries whose module paths begin with the same levels
// ("encoder", "layers.0", "self_attn": a list's index stays with the list's name) is one group,
// inside the groups of its shorter prefixes. Entries made outside every module are in none.
#include <cstdint>
#include <string>
#include <vector>

namespace tg::explore {

struct ModuleGroup {
  std::string name;     // its own level: "self_attn", "layers.0"
  std::string path;     // its levels joined: "encoder.layers.0.self_attn"
  int64_t first, last;  // the tape positions of its first and last entry
};

// "encoder.layers.0.self_attn" -> {"encoder", "layers.0", "self_attn"}
std::vector<std::string> module_levels(const std::string& path);

// positions[i] and modules[i]: the recorded entries in tape order. The groups, outermost first
// within each run.
std::vector<ModuleGroup> module_groups(const std::vector<int64_t>& positions, const std::vector<std::string>& modules);

}  // namespace tg::explore
