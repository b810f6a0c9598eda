#include "core/tape.h"

#include <atomic>

#include "core/copy.h"
#include "core/factories.h"
#include "core/grad_mode.h"
#include "core/tape_capture.h"

namespace tg {

namespace {
TensorRecord record_of(const Tensor& t) { return {t.id(), t.shape(), t.dtype(), t.device(), t.name()}; }

std::string record_str(const std::string& name, const Shape& shape) {
  return fmt::format("{}{}", name.empty() ? "" : name + " ", shape_str(shape));
}

std::string input_str(const EntryInput& in) {
  if (in.scalar.defined()) return in.scalar_str() + " const";
  return record_str(in.name(), in.record.shape) + (in.requires_grad ? "" : " const");
}
}  // namespace

const std::string& EntryInput::name() const {
  if (leaf) return leaf->name;  // a parameter's dotted name, or a name set after the op ran
  if (producer)
    for (const TensorRecord& out : producer->outputs)
      if (out.id == record.id && !out.name.empty()) return out.name;
  return record.name;
}

std::string EntryInput::scalar_str() const {
  const std::string& constant = name();
  const std::string value = fmt::format("{:.6g}", scalar.item());
  return constant.empty() ? value : constant + " = " + value;
}

std::string Entry::str() const {
  std::vector<std::string> ins, outs, saves, attrs;
  for (const auto& in : inputs) ins.push_back(input_str(in));
  for (const auto& out : outputs) outs.push_back(record_str(out.name, out.shape));
  for (const auto& s : saved) saves.push_back(s.name);
  for (const auto& [key, value] : attributes) attrs.push_back(key + "=" + value);
  std::string line = fmt::format("#{:<3} {}({}{}{}) -> {}", tape_position, op, fmt::join(ins, ", "),
                                 attrs.empty() ? "" : "; ", fmt::join(attrs, ", "), fmt::join(outs, ", "));
  if (!saves.empty()) line += fmt::format("  saved: {}", fmt::join(saves, ", "));
  if (released) line += "  [released]";
  return line;
}

const Tensor& BackwardContext::saved(std::string_view name) const {
  for (const auto& s : entry_.saved)
    if (s.name == name) return create_graph_ ? differentiable(s) : s.tensor;
  throw Error(entry_.op, fmt::format("backward rule asked for saved tensor '{}', which tape entry #{} "
                                     "does not hold", name, entry_.tape_position));
}

Tensor BackwardContext::add_into_gathered(int input) const {
  if (input >= int(gathered_.size()) || !gathered_[input].defined()) return {};
  added_[input] = true;
  return gathered_[input];
}

// The saved tensor with its history: the input itself, or the output made again (the same id,
// storage and producer), since the entry keeps its outputs by record only.
const Tensor& BackwardContext::differentiable(const SavedTensor& s) const {
  if (s.input.defined()) return s.input;
  if (s.output < 0) return s.tensor;
  if (outputs_.empty()) outputs_.resize(entry_.outputs.size());
  Tensor& out = outputs_[s.output];
  if (!out.defined()) out = Tensor(s.output_tensor.lock());
  if (!out.defined()) {
    auto impl = std::make_shared<TensorImpl>(*s.tensor.impl());
    impl->id = entry_.outputs[s.output].id;
    impl->requires_grad = true;
    impl->producer = std::const_pointer_cast<Entry>(entry_.shared_from_this());
    impl->output_index = s.output;
    out = Tensor(std::move(impl));
  }
  return out;
}

ForwardContext::ForwardContext(const TensorList& inputs, const TensorList& outputs) {
  for (const Tensor& in : inputs) {
    inputs_.push_back(in.defined() ? in.detach() : in);
    tangents_.push_back(in.defined() && in.impl()->tangent ? Tensor(in.impl()->tangent) : Tensor());
  }
  for (const Tensor& out : outputs) outputs_.push_back(out.detach());
}

Tensor ForwardContext::tangent_or_zeros(int i) const {
  return has_tangent(i) ? tangent(i) : zeros_like(input(i));
}

std::vector<std::shared_ptr<Entry>> Tape::entries() const {
  std::vector<std::shared_ptr<Entry>> live;
  for (const auto& weak : entries_)
    if (auto e = weak.lock()) live.push_back(std::move(e));
  return live;
}

void Tape::clear() {
  entries_.clear();
  next_position_ = 0;
}

void Tape::append(const std::shared_ptr<Entry>& entry) {
  entry->tape_position = next_position_++;
  entries_.push_back(entry);
  if (entries_.size() >= compact_at_) {  // drop entries whose graphs are gone
    std::erase_if(entries_, [](const auto& weak) { return weak.expired(); });
    compact_at_ = std::max<size_t>(1024, 2 * entries_.size());
  }
}

std::string Tape::to_dot(const std::function<bool(const Entry&)>& include) const {
  std::string dot = "digraph tape {\n  rankdir=LR;\n  node [fontname=\"monospace\"];\n";
  std::vector<int64_t> drawn;
  auto tensor_node = [&](int64_t id, const std::string& label, bool leaf) {
    if (std::find(drawn.begin(), drawn.end(), id) != drawn.end()) return;
    drawn.push_back(id);
    dot += fmt::format("  t{} [shape=box{}, label=\"{}\"];\n", id, leaf ? ", style=filled" : "", label);
  };
  for (const auto& e : entries()) {
    if (include && !include(*e)) continue;
    dot += fmt::format("  op{} [label=\"#{} {}\"];\n", e->tape_position, e->tape_position, e->op);
    for (const auto& in : e->inputs) {
      const std::string& name = in.name();
      tensor_node(in.record.id,
                  in.scalar.defined() ? in.scalar_str()
                                      : (name.empty() ? "" : name + "\\n") + shape_str(in.record.shape),
                  in.producer == nullptr);
      dot += fmt::format("  t{} -> op{};\n", in.record.id, e->tape_position);
    }
    for (const auto& out : e->outputs) {
      tensor_node(out.id, (out.name.empty() ? "" : out.name + "\\n") + shape_str(out.shape), false);
      dot += fmt::format("  op{} -> t{};\n", e->tape_position, out.id);
    }
  }
  return dot + "}\n";
}

Tape& tape() {
  thread_local Tape t;
  return t;
}

Recorder::Recorder(std::string op, const TensorList& inputs, const TensorList& outputs) {
  bool dual = false;  // an input carries a tangent (tg::jvp): the outputs get theirs from forward()
  for (const auto& in : inputs) {
    if (!in.defined()) continue;
    records_ = records_ || (GradMode::enabled() && in.requires_grad());
    dual = dual || in.impl()->tangent != nullptr;
  }
  if (AnomalyMode::enabled()) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      if (all_finite(outputs[i], /*allow_neg_inf=*/true)) continue;  // -inf: masked scores
      std::vector<std::string> shapes;
      for (const auto& in : inputs) shapes.push_back(in.defined() ? in.describe() : "none");
      std::string where = records_ ? fmt::format("tape entry #{} ", tape().next_position())
                                   : std::string("an unrecorded call of ");
      throw Error(op, fmt::format("anomaly: {}'{}' produced NaN or +Inf in output {} {}; inputs: {}", where,
                                  op, i, shape_str(outputs[i].shape()), fmt::join(shapes, ", ")));
    }
  }
  if (!records_ && !dual) return;
  if (dual) dual_inputs_ = inputs;

  entry_ = std::make_shared<Entry>();
  static std::atomic<uint64_t> created{0};
  entry_->creation_order = ++created;
  entry_->op = std::move(op);
  entry_->module = current_module();
  for (const auto& in : inputs) {
    EntryInput e;
    if (in.defined()) {
      e.requires_grad = in.requires_grad();
      e.producer = in.producer();
      if (in.requires_grad() && in.is_leaf()) e.leaf = in.impl_ptr();
      // A leaf's name is read from the leaf itself (EntryInput::name): a parameter's long dotted
      // name is not copied at every step.
      e.record = e.leaf ? TensorRecord{in.id(), in.shape(), in.dtype(), in.device(), {}} : record_of(in);
      if (!in.requires_grad() && in.numel() == 1) e.scalar = in;  // a handle: nothing is read now
    }
    entry_->inputs.push_back(std::move(e));
  }
  for (const auto& out : outputs) entry_->outputs.push_back(record_of(out));
  outputs_ = outputs;
  if (TapeCapture* capture = TapeCapture::active(); capture && records_) capture->add(entry_, inputs, outputs);
}

Recorder& Recorder::save(std::string name, const Tensor& t) {
  // Saved detached: a saved output must not own its own producer (that would be a cycle). An
  // input is kept with its history too, an output by its index (BackwardContext::saved).
  SavedTensor s{std::move(name), t.defined() ? t.detach() : t, t.defined() ? t.storage()->version() : 0};
  for (size_t i = 0; i < outputs_.size() && t.defined(); ++i)
    if (outputs_[i].impl() == t.impl()) {
      s.output = static_cast<int>(i);
      s.output_tensor = t.impl_ptr();
    }
  if (s.output < 0 && t.defined() && t.requires_grad())
    for (const EntryInput& in : entry_->inputs)
      if (in.record.id == t.id()) s.input = t;
  entry_->saved.push_back(std::move(s));
  return *this;
}

void Recorder::set_tangents(const TensorList& tangents) {
  if (tangents.size() != outputs_.size())
    throw Error(entry_->op, fmt::format("forward-mode rule returned {} tangents for {} outputs", tangents.size(),
                                        outputs_.size()));
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Tensor& t = tangents[i];
    if (!t.defined()) continue;  // a zero tangent
    if (t.shape() != outputs_[i].shape() || t.dtype() != outputs_[i].dtype())
      throw Error(entry_->op, fmt::format("forward-mode rule returned a {} {} tangent for output {} {}",
                                          shape_str(t.shape()), dtype_name(t.dtype()), i, outputs_[i].describe()));
    outputs_[i].impl()->tangent = t.impl_ptr();
  }
  tangents_set_ = true;
}

void Recorder::backward(BackwardRule reference, BackwardRule fast) {
  if (!dual_inputs_.empty() && !tangents_set_)
    throw Error(entry_->op, fmt::format("'{}' has no forward-mode rule, so tg::jvp cannot go through it",
                                        entry_->op));
  if (!records_) return;  // only tangents were asked for
  entry_->reference = std::move(reference);
  entry_->fast = std::move(fast);
  tape().append(entry_);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    TensorImpl* out = outputs_[i].impl();
    if (!is_floating(out->dtype)) continue;  // index outputs (argmax) carry no gradient
    out->requires_grad = true;
    out->producer = entry_;
    out->output_index = static_cast<int>(i);
  }
}

}  // namespace tg

auto fmt::formatter<tg::Tape>::format(const tg::Tape& tape, format_context& ctx) const
    -> decltype(ctx.out()) {
  std::string text;
  for (const auto& e : tape.entries()) text += e->str() + "\n";
  if (text.empty()) text = "(empty tape)\n";
  return fmt::formatter<std::string_view>::format(text, ctx);
}
