#pragma once
// An op's documentation for the explorer's page: {"summary", "forward": LaTeX, "backward":
// [{"input", "latex", "text"}]}, or null for an op without one.
#include <string>

#include <nlohmann/json.hpp>

namespace tg::explore {

nlohmann::json op_doc_json(const std::string& op);

}  // namespace tg::explore
