#include "explore/op_doc.h"

#include "ops/op_registry.h"

namespace tg::explore {

nlohmann::json op_doc_json(const std::string& op) {
  const OpDoc* doc = find_op_doc(op);
  if (doc == nullptr) return nullptr;
  nlohmann::json backward = nlohmann::json::array();
  for (const BackwardRuleDoc& rule : doc->backward)
    backward.push_back({{"input", rule.input}, {"latex", rule.tex}, {"text", rule.text}});
  return {{"summary", doc->summary},
          {"forward", doc->forward_tex},
          {"forward_text", doc->forward_text},
          {"backward", std::move(backward)}};
}

}  // namespace tg::explore
