#include "lab/lab_training.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "data/dataloader.h"
#include "explore/model_example.h"
#include "ops/clone/clone.h"
#include "ops/cross_entropy/cross_entropy.h"
#include "train/attention_snapshot.h"
#include "train/config.h"
#include "train/metrics_log.h"
#include "train/registry/arch.h"
#include "train/registry/registry.h"
#include "train/sequence_task.h"

namespace tg::lab {

namespace {

// A flag's config field and back: "d-model" <-> "d_model".
std::string replaced(std::string text, char from, char to) {
  for (char& c : text)
    if (c == from) c = to;
  return text;
}
std::string field_of(const std::string& flag) { return replaced(flag, '-', '_'); }
std::string flag_of(const std::string& field) { return replaced(field, '_', '-'); }

train::SequenceTask& sequence_task(train::Trainer& trainer) { return trainer.task_as<train::SequenceTask>(); }

// The tokens `ids` stand for, escaped as the pages show them.
std::vector<std::string> tokens_of(const data::Vocab& vocab, const std::vector<int64_t>& ids) {
  std::vector<std::string> tokens;
  for (int64_t id : ids) tokens.push_back(data::escape_token(vocab.token(id)));
  return tokens;
}

// The module's weights now, copied (state_dict's tensors share the module's storage).
NamedTensors copy_of_weights(const nn::Module& model) {
  NamedTensors state = model.state_dict();
  for (auto& [name, t] : state) t = clone(t);
  return state;
}

// The page's example: validation example 0 of the run's task.
data::Example shown_example(train::Trainer& trainer) { return sequence_task(trainer).data().val->get(0); }

}  // namespace

train::TrainConfig config_from_flags(const nlohmann::json& flags) {
  if (!flags.is_object()) throw Error("lab", "train's options must be an object of tapegrad train's flags");
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& [flag, value] : flags.items()) fields[field_of(flag)] = value;
  const train::Arch& arch = train::arch_named(fields.value("arch", train::TrainConfig{}.arch));
  if (arch.decodes_sequences)
    throw Error("lab", fmt::format("arch {} ({}) does not train in the page: it trains {}", arch.name, arch.is,
                                   train::all_of(train::arch_names_where(&train::Arch::decodes_sequences, false))));
  for (const char* file_field : {"data", "val_data", "tokenizer", "device", "out"})
    if (fields.contains(file_field))
      throw Error("lab", fmt::format("--{} is not for the page: it trains the synthetic tasks and the built-in grammar "
                                     "corpus, on the CPU, and writes nothing",
                                     flag_of(file_field)));
  nlohmann::json config = nlohmann::json::parse(train::to_json(arch.defaults()));
  for (const auto& [field, value] : fields.items()) {
    if (!config.contains(field))
      throw Error("lab", fmt::format("train has no flag --{} the page takes", flag_of(field)));
    config[field] = value;
  }
  train::TrainConfig c = train::config_from_json(config.dump());
  if (!fields.contains("warmup")) c.warmup = train::scaled_warmup(c);
  if (c.task == "file") throw Error("lab", "--task file reads a file: the page trains the synthetic tasks and lm");
  train::validate(c);
  return c;
}

LabTraining::LabTraining(const nlohmann::json& flags)
    : trainer_(std::make_unique<train::Trainer>(config_from_flags(flags),
                                                train::TrainerOptions{.console = nullptr, .write_files = false})) {
  keep();
}

nlohmann::json LabTraining::describe() {
  nlohmann::json parameters = nlohmann::json::array();
  for (const auto& [name, p] : trainer_->model().named_parameters())
    parameters.push_back({{"name", name}, {"shape", p.shape()}});
  return {{"config", nlohmann::json::parse(train::to_json(trainer_->config()))},
          {"step", trainer_->step()},
          {"parameters", parameters},
          {"classes", class_names()}};
}

nlohmann::json LabTraining::updates(int64_t count) {
  nlohmann::json records = nlohmann::json::array();
  for (int64_t i = 0; i < count && trainer_->step() < trainer_->config().steps; ++i)
    records.push_back(nlohmann::json::parse(train::json_line(trainer_->update())));
  return records;
}

void LabTraining::keep() {
  if (kept_.size() >= kMaxKept && !kept_.contains(trainer_->step()))
    throw Error("lab", fmt::format("the page keeps the weights of at most {} steps", kMaxKept));
  kept_[trainer_->step()] = copy_of_weights(trainer_->model());
}

std::vector<std::string> LabTraining::input_tokens(const data::Example& example) const {
  return tokens_of(trainer_->task().input_vocab(), example.input);
}

std::vector<std::string> LabTraining::class_names() const {
  const data::Vocab& classes = trainer_->task().output_vocab();
  std::vector<int64_t> ids(static_cast<size_t>(classes.size()));
  std::iota(ids.begin(), ids.end(), 0);
  return tokens_of(classes, ids);
}

template <class Look>
nlohmann::json LabTraining::with_weights_of(int64_t step, Look look) {
  if (step == trainer_->step()) return look();
  const auto kept = kept_.find(step);
  if (kept == kept_.end()) {
    std::vector<int64_t> steps;
    for (const auto& [s, state] : kept_) steps.push_back(s);
    throw Error("lab", fmt::format("the weights of step {} are not kept (kept: {})", step, fmt::join(steps, ", ")));
  }
  nn::Module& model = trainer_->model();
  const NamedTensors now = copy_of_weights(model);
  model.load_state_dict(kept->second);
  nlohmann::json seen;
  try {
    seen = look();
  } catch (...) {
    model.load_state_dict(now);
    throw;
  }
  model.load_state_dict(now);
  return seen;
}

nlohmann::json LabTraining::snapshot(int64_t step, const std::string& gradient) {
  return with_weights_of(step, [&] {
    train::SequenceTask& task = sequence_task(*trainer_);
    train::TransformerModel& model = task.model();
    const data::Example ex = shown_example(*trainer_);
    const train::AttentionExample attention = *task.attention_example(step);

    // Example 0's loss and gradients in evaluation mode; the Trainer's next update starts from no
    // gradients, as after its last.
    model.eval();
    const data::Batch batch = data::collate({ex});
    const Tensor logits = model.forward(batch.inputs, batch.padding_mask);  // (1,T,C)
    const Tensor loss = cross_entropy(logits, batch.targets);
    loss.backward();
    model.train();
    nlohmann::json snap = {{"step", step},
                           {"tokens", attention.tokens},
                           {"loss", loss.item()},
                           {"prediction", explore::prediction_json(logits, ex, input_tokens(ex), class_names())},
                           {"attention", {{"heads", attention.heads}, {"layers", attention.layers}}}};
    if (!gradient.empty()) {
      const NamedTensors parameters = model.named_parameters();
      const auto p =
          std::find_if(parameters.begin(), parameters.end(), [&](const auto& np) { return np.first == gradient; });
      if (p == parameters.end()) {
        model.zero_grad();
        throw Error("lab", fmt::format("the model has no parameter named '{}'", gradient));
      }
      snap["gradient"] = {
          {"name", gradient}, {"shape", p->second.shape()}, {"values", p->second.grad().to_vector<float>()}};
    }
    model.zero_grad();
    return snap;
  });
}

nlohmann::json LabTraining::record(int64_t step) {
  return with_weights_of(step, [&] {
    const data::Example ex = shown_example(*trainer_);
    nlohmann::json rec = explore::record_model_example(sequence_task(*trainer_).model(), ex, input_tokens(ex),
                                                       class_names(), explore::Graphs::kNone);  // the page lays it out
    rec["step"] = step;
    return rec;
  });
}

nlohmann::json LabTraining::evaluate() { return nlohmann::json::parse(train::json_line(trainer_->evaluate())); }

}  // namespace tg::lab
