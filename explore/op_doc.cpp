#include "explore/op_doc.h"

namespace tg::explore {

nlohmann::json op_doc_json(const std::string&) { return nullptr; }

}  // namespace tg::explore
