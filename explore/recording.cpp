#include "explore/recording.h"

#include <string>

#include <fmt/format.h>

#include "core/backward.h"
#include "core/error.h"
#include "explore/gradient_readers.h"
#include "explore/module_groups.h"
#include "explore/op_doc.h"
#include "explore/tensor_summary.h"

namespace tg::explore {

namespace {

// The "tensors" table: each tensor once, by id.
class TensorTable {
 public:
  nlohmann::json add(const Tensor& t, const std::string& kind) {
    if (!t.defined()) return nullptr;
    const std::string key = std::to_string(t.id());
    if (!table_.contains(key))
      table_[key] = {{"id", t.id()}, {"name", t.name()}, {"kind", kind}, {"value", summarize(t)}};
    return t.id();
  }
  nlohmann::json take() { return std::move(table_); }

 private:
  nlohmann::json table_ = nlohmann::json::object();
};

nlohmann::json ids_of(TensorTable& table, const TensorList& tensors, const std::string& kind) {
  nlohmann::json ids = nlohmann::json::array();
  for (const Tensor& t : tensors) ids.push_back(table.add(t, kind));
  return ids;
}

nlohmann::json entry_json(const CapturedEntry& c, TensorTable& table) {
  const Entry& e = *c.entry;
  nlohmann::json inputs = nlohmann::json::array(), saved = nlohmann::json::array();
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const Tensor& t = c.inputs.at(i);
    const std::string kind = !t.defined() || !t.is_leaf() ? "computed" : t.requires_grad() ? "parameter" : "constant";
    inputs.push_back({{"tensor", table.add(t, kind)}, {"requires_grad", e.inputs[i].requires_grad}});
  }
  for (const SavedTensor& s : e.saved) saved.push_back({{"name", s.name}, {"tensor", table.add(s.tensor, "saved")}});
  return {{"position", e.tape_position},
          {"op", e.op},
          {"module", e.module ? *e.module : std::string()},
          {"attributes", e.attributes},
          {"inputs", std::move(inputs)},
          {"outputs", ids_of(table, c.outputs, "computed")},
          {"saved", std::move(saved)},
          {"doc", op_doc_json(e.op)}};
}

// Per input: for one of several contributions to a gradient, what contribution_text says; else null.
nlohmann::json contributions_json(const Entry& e, const TensorList& grads, const GradientReaders& readers) {
  nlohmann::json texts = nlohmann::json::array();
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const std::string text = grads[i].defined() ? contribution_text(readers, e.inputs[i].record.id) : "";
    texts.push_back(text.empty() ? nlohmann::json() : nlohmann::json(text));
  }
  return texts;
}

}  // namespace

nlohmann::json record(const TapeCapture& capture, const Tensor& loss, Graphs graphs) {
  if (!loss.defined() || loss.numel() != 1 || !loss.requires_grad())
    throw Error("explore", "the recorded loss must be a one-element tensor that requires grad");
  TensorTable table;
  nlohmann::json entries = nlohmann::json::array();
  std::vector<Tensor> leaves;
  std::vector<int64_t> positions;
  std::vector<std::string> modules;
  for (const CapturedEntry& c : capture.entries()) {
    entries.push_back(entry_json(c, table));
    positions.push_back(c.entry->tape_position);
    modules.push_back(c.entry->module ? *c.entry->module : std::string());
    for (const Tensor& in : c.inputs)
      if (in.defined() && in.is_leaf() && in.requires_grad()) leaves.push_back(in);
  }
  nlohmann::json doc = {{"loss", json_number(loss.item())}, {"entries", std::move(entries)}};
  if (graphs == Graphs::kDot) doc["dot"] = tape().to_dot();
  nlohmann::json groups = nlohmann::json::array();
  for (const ModuleGroup& g : module_groups(positions, modules)) {
    groups.push_back({{"name", g.name}, {"path", g.path}, {"first", g.first}, {"last", g.last}});
    if (graphs == Graphs::kDot)
      groups.back()["dot"] =
          tape().to_dot([&g](const Entry& e) { return e.tape_position >= g.first && e.tape_position <= g.last; });
  }
  doc["groups"] = std::move(groups);

  nlohmann::json steps = nlohmann::json::array();
  const GradientReaders readers = gradient_readers(loss);
  BackwardStepper stepper(loss);
  while (!stepper.done()) {
    const Entry& e = stepper.step();
    steps.push_back({{"position", e.tape_position},
                     {"grads_in", ids_of(table, stepper.last_output_grads(), "gradient")},
                     {"grads_out", ids_of(table, stepper.last_input_grads(), "gradient")},
                     {"contributions", contributions_json(e, stepper.last_input_grads(), readers)}});
  }
  nlohmann::json leaf_grads = nlohmann::json::object();
  for (const Tensor& leaf : leaves)
    if (leaf.grad().defined()) leaf_grads[std::to_string(leaf.id())] = table.add(leaf.grad(), "gradient");
  doc["backward"] = std::move(steps);
  doc["leaf_grads"] = std::move(leaf_grads);
  doc["tensors"] = table.take();
  return doc;
}

}  // namespace tg::explore
