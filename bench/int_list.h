#pragma once
// A comma-separated list of integers, as the benches take it ("--blocks 256,1024").
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace tg::bench {

inline std::vector<int64_t> parse_int_list(const std::string& text) {
  std::vector<int64_t> values;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) values.push_back(std::stoll(item));
  return values;
}

}  // namespace tg::bench
