#include "train/checkpoint.h"

#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/copy.h"
#include "core/error.h"
#include "core/factories.h"
#include "core/io/json_fields.h"
#include "core/io/untrusted_text.h"
#include "core/non_finite.h"
#include "data/tasks.h"
#include "train/registry/registry.h"

namespace tg::train {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error("checkpoint", fmt::format("{}: {}", path.string(), what));
}

// arch and tie_weights are written where the arch says named_in_metadata: an encoder's metadata
// (and its PyTorch export's config.json, TapegradModel's arguments) stays as it was before gpt existed.
json model_config_json(const ModelConfig& m) {
  json j = {{"vocab_size", m.vocab_size}, {"num_classes", m.num_classes}, {"max_len", m.max_len},
            {"d_model", m.d_model},       {"heads", m.heads},             {"layers", m.layers},
            {"ff", m.ff},                 {"dropout", m.dropout},         {"causal", m.causal}};
  if (arch_named(m.arch).named_in_metadata) j["arch"] = m.arch, j["tie_weights"] = m.tie_weights;
  return j;
}

// The "model" metadata: every field but arch and tie_weights (not written for every arch) present,
// each of its exact type.
ModelConfig model_config_from(const std::string& text) {
  constexpr const char* kOp = "model metadata";
  const json j = parse_object(text, "the model metadata", kOp);
  require_fields(j, {"vocab_size", "num_classes", "max_len", "d_model", "heads", "layers", "ff", "dropout", "causal"},
                 kOp);
  ModelConfig m;
  read_field(j, "vocab_size", m.vocab_size, kOp), read_field(j, "num_classes", m.num_classes, kOp);
  read_field(j, "max_len", m.max_len, kOp), read_field(j, "d_model", m.d_model, kOp);
  read_field(j, "heads", m.heads, kOp), read_field(j, "layers", m.layers, kOp), read_field(j, "ff", m.ff, kOp);
  read_field(j, "dropout", m.dropout, kOp), read_field(j, "causal", m.causal, kOp);
  read_field(j, "arch", m.arch, kOp), read_field(j, "tie_weights", m.tie_weights, kOp);
  return m;
}

// The reserved tokens come first in every Vocab; only the rest is stored.
json vocab_json(const data::Vocab& v) {
  return std::vector<std::string>(v.tokens().begin() + data::kNumReserved, v.tokens().end());
}

// A 0-d int64 tensor holding v exactly (scalar() goes through a double).
Tensor i64_scalar(int64_t v) {
  Tensor t = zeros({}, kI64);
  t.data<int64_t>()[0] = v;
  return t;
}

// A stored vocabulary (the tokens after the reserved ones): every token a non-empty string,
// none reserved or repeated, so that the Vocab built from it has exactly these ids.
data::Vocab vocab_from(const std::filesystem::path& path, const char* key, const std::string& text) {
  const std::string expected = fmt::format("{} should be a JSON array of strings", key);
  if (json_too_deep(text, 1)) fail(path, expected + ", not nested");
  json list;
  try {
    list = json::parse(text);
  } catch (const json::exception& e) {
    fail(path, fmt::format("{} is not valid JSON: {}", key, excerpt(e.what(), 160)));
  }
  if (!list.is_array()) fail(path, fmt::format("{}, got {}", expected, json_excerpt(list)));
  std::vector<std::string> tokens;
  for (const json& token : list) {
    if (!token.is_string())
      fail(path, fmt::format("{}: entry {} is {}", expected, tokens.size(), json_excerpt(token)));
    tokens.push_back(token.get<std::string>());
  }
  if (std::ssize(tokens) > kMaxVocab - data::kNumReserved)
    fail(path, fmt::format("{} has {} tokens, more than the limit of {}", key, tokens.size(),
                           kMaxVocab - data::kNumReserved));
  data::Vocab vocab;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& token = tokens[i];
    if (token.empty()) fail(path, fmt::format("{} entry {} is the empty string", key, i));
    if (vocab.contains(token))
      fail(path, fmt::format("{} entry {} repeats the token \"{}\" (id {})", key, i, data::escape_token(token),
                             vocab.id(token)));
    vocab.add(token);
  }
  return vocab;
}

// The model metadata against the config and the vocabularies stored beside it.
void check_model_matches(const std::filesystem::path& path, const Checkpoint& c) {
  const TrainConfig& t = c.config;
  const ModelConfig& m = c.model_config;
  std::vector<std::string> wrong;
  const auto expect = [&](const char* field, const auto& described, const auto& should_be,
                          const std::string& source) {
    if (described != should_be) wrong.push_back(fmt::format("{} is {} but {} gives {}", field, described, source,
                                                            should_be));
  };
  expect("d_model", m.d_model, t.d_model, "the config");
  expect("heads", m.heads, t.heads, "the config");
  expect("layers", m.layers, t.layers, "the config");
  expect("ff", m.ff, t.ff, "the config");
  expect("dropout", m.dropout, t.dropout, "the config");
  const Task& task = task_named(t.task);
  expect("causal", m.causal, arch_named(t.arch).causal.value_or(task.causal), "task " + t.task);
  expect("arch", m.arch, t.arch, "the config");
  expect("tie_weights", m.tie_weights, t.tie_weights, "the config");
  expect("vocab_size", m.vocab_size, c.input_vocab.size(), "input_vocab");
  expect("num_classes", m.num_classes, c.output_vocab.size(), "output_vocab");
  if (const std::optional<int64_t> positions = task.positions(t))
    expect("max_len", m.max_len, *positions, "task " + t.task);
  if (!wrong.empty()) fail(path, fmt::format("the model metadata does not match: {}", fmt::join(wrong, "; ")));
}

// The counters against the config: the step within the run, the scheduler at the same step,
// the loader no further than the batches those steps read, the generator the run's.
void check_counters(const std::filesystem::path& path, const Checkpoint& c, int64_t stored_rng_offset) {
  const TrainConfig& t = c.config;
  if (c.step < 0 || c.step > t.steps)
    fail(path, fmt::format("trainer.step must be in [0, steps = {}], got {}", t.steps, c.step));
  if (c.scheduler.size() != 1 || c.scheduler[0].second.numel() != 1 || c.scheduler[0].second.item() != c.step)
    fail(path, fmt::format("the scheduler's state must be one scheduler.step equal to trainer.step ({})", c.step));
  const int64_t batches_read = c.step * t.grad_accum;  // validate() bounds the product
  if (c.loader.epoch < 0 || c.loader.epoch > batches_read || c.loader.batch < 0 || c.loader.batch > batches_read)
    fail(path, fmt::format("loader.epoch and loader.batch must be in [0, {}] after {} steps of {} batches, got {} "
                           "and {}", batches_read, c.step, t.grad_accum, c.loader.epoch, c.loader.batch));
  if (c.rng_seed != t.seed)
    fail(path, fmt::format("rng.seed must be the config's seed ({}), got {}", t.seed, c.rng_seed));
  if (stored_rng_offset < 0) fail(path, fmt::format("rng.offset must be >= 0, got {}", stored_rng_offset));
}

// The dtype each entry is stored in: the model's and the optimizer's buffers float32 (the
// model's dtype), the optimizer's options and learning rates float64, every count int64.
DType stored_dtype(const std::string& name) {
  if (name.starts_with("optimizer.options.") || name.starts_with("optimizer.group.")) return kF64;
  if (name.starts_with("optimizer.state.") && name.ends_with(".step")) return kI64;
  if (name.starts_with("model.") || name.starts_with("optimizer.state.")) return kF32;
  return kI64;  // scheduler.step, trainer.step, rng.*, loader.*
}

// "nan at element 7": the first value of `t` that is NaN or infinite.
std::string non_finite_value(const Tensor& t) {
  const NonFinite bad = tg::first_non_finite(t);
  return fmt::format("{} at element {}", bad.value, bad.index);
}

// Every entry of exactly its dtype (nothing is converted on the way in: an int64 or bool tensor
// where float32 belongs is a foreign or edited file), every floating value finite.
void check_stored_tensors(const std::filesystem::path& path, const NamedTensors& tensors) {
  for (const auto& [name, t] : tensors) {
    const DType expected = stored_dtype(name);
    if (t.dtype() != expected)
      fail(path, fmt::format("\"{}\" is {} {}, expected {}", name, dtype_name(t.dtype()), shape_str(t.shape()),
                             dtype_name(expected)));
    if (!all_finite(t))
      fail(path, fmt::format("\"{}\" holds {}: a checkpoint's weights and optimizer state are finite (the run that "
                             "wrote it had diverged, or the file was edited)", name, non_finite_value(t)));
  }
}

// A run updates every parameter at every step (train/trainer.h), so after trainer.step steps
// each model tensor <p> has its optimizer state, optimizer.state.<p>.step equal to trainer.step
// (and none at step 0): a missing state would be re-initialised, another count would change
// Adam's bias correction.
void check_optimizer_steps(const std::filesystem::path& path, const Checkpoint& c) {
  std::map<std::string, const Tensor*> steps;
  for (const auto& [key, t] : c.optimizer)
    if (key.starts_with("state.") && key.ends_with(".step")) steps.emplace(key, &t);
  std::vector<std::string> missing;
  for (const auto& [name, weight] : c.model) {
    const std::string key = "state." + name + ".step";
    auto it = steps.find(key);
    if (it == steps.end()) {
      if (c.step > 0) missing.push_back("optimizer." + key);
      continue;
    }
    const Tensor& t = *it->second;
    const std::string got = t.numel() == 1 ? std::to_string(t.data<int64_t>()[0]) : t.describe();
    if (t.numel() != 1 || t.data<int64_t>()[0] != c.step)
      fail(path, fmt::format("\"optimizer.{}\" must be one int64 equal to trainer.step ({}): every parameter is "
                             "updated at every step, got {}", key, c.step, got));
    steps.erase(it);
  }
  if (!missing.empty())
    fail(path, fmt::format("the optimizer state is incomplete after {} steps: {} missing", c.step,
                           fmt::join(missing, ", ")));
  if (!steps.empty())
    fail(path, fmt::format("\"optimizer.{}\" is the state of no model tensor", steps.begin()->first));
}

}  // namespace

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& c) {
  NamedTensors tensors;
  for (const auto& [name, t] : c.model) tensors.emplace_back("model." + name, t);
  for (const auto& [name, t] : c.optimizer) tensors.emplace_back("optimizer." + name, t);
  for (const auto& [name, t] : c.scheduler) tensors.emplace_back(name, t);
  tensors.emplace_back("trainer.step", i64_scalar(c.step));
  tensors.emplace_back("rng.seed", i64_scalar(static_cast<int64_t>(c.rng_seed)));
  tensors.emplace_back("rng.offset", i64_scalar(static_cast<int64_t>(c.rng_offset)));
  tensors.emplace_back("loader.epoch", i64_scalar(c.loader.epoch));
  tensors.emplace_back("loader.batch", i64_scalar(c.loader.batch));
  for (const auto& [name, t] : tensors)
    if (!all_finite(t))
      throw Error("checkpoint", fmt::format("{}: not written: \"{}\" holds {} at step {}: the run has diverged; the "
                                            "file there, if any, is as it was", path.string(), name,
                                            non_finite_value(t), c.step));
  SafetensorsMetadata meta{{"format", kCheckpointFormat},
                           {"config", to_json(c.config)},
                           {"model", model_config_json(c.model_config).dump()},
                           {"input_vocab", vocab_json(c.input_vocab).dump()},
                           {"output_vocab", vocab_json(c.output_vocab).dump()}};
  save_safetensors(path, tensors, meta);
}

Checkpoint load_checkpoint(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path)) fail(path, "no such file");
  SafetensorsFile file;
  try {
    file = load_safetensors(path);
  } catch (const Error& e) {
    fail(path, fmt::format("not a readable checkpoint ({})", e.what()));
  }
  const auto meta = [&](const char* key) -> const std::string& {
    auto it = file.metadata.find(key);
    if (it == file.metadata.end()) fail(path, fmt::format("metadata has no \"{}\" entry", key));
    return it->second;
  };
  if (meta("format") != kCheckpointFormat)
    fail(path, fmt::format("format is \"{}\", expected \"{}\"", meta("format"), kCheckpointFormat));

  const std::string &config_json = meta("config"), &model_json = meta("model");  // (outside the try: named once)
  Checkpoint c;
  try {
    c.config = config_from_json(config_json);
    validate(c.config);
    c.model_config = model_config_from(model_json);
    c.model_config.numerics = c.config.numerics;
    check_model_config(c.model_config);
  } catch (const Error& e) {
    fail(path, e.what());
  }
  c.input_vocab = vocab_from(path, "input_vocab", meta("input_vocab"));
  c.output_vocab = vocab_from(path, "output_vocab", meta("output_vocab"));
  check_model_matches(path, c);

  check_stored_tensors(path, file.tensors);
  std::map<std::string, Tensor> scalars;
  for (auto& [name, t] : file.tensors) {
    if (name.starts_with("model.")) c.model.emplace_back(name.substr(6), t);
    else if (name.starts_with("optimizer.")) c.optimizer.emplace_back(name.substr(10), t);
    else if (name.starts_with("scheduler.")) c.scheduler.emplace_back(name, t);
    else scalars.emplace(name, t);
  }
  const auto scalar = [&](const char* name) -> int64_t {
    auto it = scalars.find(name);
    if (it == scalars.end()) fail(path, fmt::format("has no \"{}\" entry", name));
    if (it->second.dtype() != kI64 || it->second.numel() != 1)
      fail(path, fmt::format("\"{}\" should be one int64, got {}", name, it->second.describe()));
    return it->second.data<int64_t>()[0];
  };
  c.step = scalar("trainer.step");
  c.rng_seed = static_cast<uint64_t>(scalar("rng.seed"));
  c.rng_offset = static_cast<uint64_t>(scalar("rng.offset"));
  c.loader = {scalar("loader.epoch"), scalar("loader.batch")};
  if (c.model.empty()) fail(path, "has no model weights (model.*)");
  for (const auto& [name, t] : scalars)
    if (name != "trainer.step" && name != "rng.seed" && name != "rng.offset" && name != "loader.epoch" &&
        name != "loader.batch")
      fail(path, fmt::format("has an unexpected entry \"{}\"", name));
  check_counters(path, c, scalar("rng.offset"));
  check_optimizer_steps(path, c);
  try {
    check_weights_fit(c.model_config, c.model);
  } catch (const Error& e) {
    fail(path, e.what());
  }
  return c;
}

std::unique_ptr<TransformerModel> load_model(const Checkpoint& c) {
  if (const Arch& arch = arch_named(c.model_config.arch); arch.decodes_sequences)
    throw Error("checkpoint", fmt::format("a {} ({}) checkpoint of task {}: this command reads {} models only",
                                          arch.name, arch.is, c.config.task,
                                          all_of(arch_names_where(&Arch::decodes_sequences, false))));
  auto model = std::make_unique<TransformerModel>(c.model_config);
  model->load_state_dict(c.model);
  model->eval();
  return model;
}

std::string to_json(const ModelConfig& config) { return model_config_json(config).dump(); }

std::filesystem::path checkpoint_file(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p) ? p / "checkpoint.safetensors" : p;
}

}  // namespace tg::train
