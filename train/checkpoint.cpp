#include "train/checkpoint.h"

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/factories.h"

namespace tg::train {

namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error("checkpoint", fmt::format("{}: {}", path.string(), what));
}

json model_config_json(const ModelConfig& m) {
  return {{"vocab_size", m.vocab_size}, {"num_classes", m.num_classes}, {"max_len", m.max_len},
          {"d_model", m.d_model},       {"heads", m.heads},             {"layers", m.layers},
          {"ff", m.ff},                 {"dropout", m.dropout},         {"causal", m.causal}};
}

ModelConfig model_config_from(const json& j) {
  ModelConfig m;
  j.at("vocab_size").get_to(m.vocab_size), j.at("num_classes").get_to(m.num_classes);
  j.at("max_len").get_to(m.max_len), j.at("d_model").get_to(m.d_model), j.at("heads").get_to(m.heads);
  j.at("layers").get_to(m.layers), j.at("ff").get_to(m.ff), j.at("dropout").get_to(m.dropout);
  j.at("causal").get_to(m.causal);
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

  Checkpoint c;
  c.config = config_from_json(meta("config"));
  try {
    c.model_config = model_config_from(json::parse(meta("model")));
    c.input_vocab = data::Vocab(json::parse(meta("input_vocab")).get<std::vector<std::string>>());
    c.output_vocab = data::Vocab(json::parse(meta("output_vocab")).get<std::vector<std::string>>());
  } catch (const json::exception& e) {
    fail(path, fmt::format("malformed metadata: {}", e.what()));
  }

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
  return c;
}

std::unique_ptr<TransformerModel> load_model(const Checkpoint& c) {
  auto model = std::make_unique<TransformerModel>(c.model_config);
  model->load_state_dict(c.model);
  model->eval();
  return model;
}

std::filesystem::path checkpoint_file(const std::filesystem::path& p) {
  return std::filesystem::is_directory(p) ? p / "checkpoint.safetensors" : p;
}

}  // namespace tg::train
