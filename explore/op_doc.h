#pragma once
// An op's documentation (its OpDoc, ops/op_registry.h) as the explorer's page reads it:
// {"summary", "forward": LaTeX, "forward_text", "backward": [{"input", "latex", "text"}]}, or
// null for an op without one.
#include <string>

#include <nlohmann/json.hpp>

namespace tg::explore {

nlohmann::json op_doc_json(const std::string& op);

}  // namespace tg::explore
