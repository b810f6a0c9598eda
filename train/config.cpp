#include "train/config.h"

#include <algorithm>
#include <charconv>
#include <iterator>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace tg::train {

namespace {

// Every field once, for both directions of the JSON conversion.
template <class Config, class F> void for_each_field(Config& c, F&& f) {
  f("task", c.task), f("data", c.data), f("min_len", c.min_len), f("max_len", c.max_len);
  f("modulus", c.modulus), f("block_size", c.block_size), f("val_examples", c.val_examples);
  f("val_fraction", c.val_fraction);
  f("d_model", c.d_model), f("heads", c.heads), f("layers", c.layers), f("ff", c.ff), f("dropout", c.dropout);
  f("steps", c.steps), f("batch_size", c.batch_size), f("grad_accum", c.grad_accum), f("lr", c.lr);
  f("warmup", c.warmup), f("min_lr_ratio", c.min_lr_ratio), f("weight_decay", c.weight_decay);
  f("clip", c.clip);
  f("eval_every", c.eval_every), f("log_every", c.log_every), f("eval_batches", c.eval_batches);
  f("seed", c.seed), f("device", c.device), f("out", c.out);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("config", what);
}

}  // namespace

void validate(const TrainConfig& c) {
  const std::string tasks[] = {"copy", "reverse", "sort", "mod_add", "lm", "file"};
  require(std::find(std::begin(tasks), std::end(tasks), c.task) != std::end(tasks),
          fmt::format("unknown task \"{}\" (copy, reverse, sort, mod_add, lm or file)", c.task));
  require(c.task != "file" || !c.data.empty(), "task file needs a data file (--data path.tsv or path.jsonl)");
  require(c.min_len >= 1 && c.max_len >= c.min_len,
          fmt::format("need 1 <= min_len <= max_len, got {} and {}", c.min_len, c.max_len));
  require(c.modulus >= 2, fmt::format("modulus must be >= 2, got {}", c.modulus));
  require(c.block_size >= 1, fmt::format("block_size must be >= 1, got {}", c.block_size));
  require(c.val_examples >= 1, fmt::format("val_examples must be >= 1, got {}", c.val_examples));
  require(c.val_fraction > 0 && c.val_fraction < 1, fmt::format("val_fraction must be in (0, 1), got {}", c.val_fraction));
  require(c.d_model >= 1 && c.heads >= 1 && c.d_model % c.heads == 0,
          fmt::format("d_model ({}) must be a positive multiple of heads ({})", c.d_model, c.heads));
  require(c.layers >= 1, fmt::format("layers must be >= 1, got {}", c.layers));
  require(c.ff >= 1, fmt::format("ff must be >= 1, got {}", c.ff));
  require(c.dropout >= 0 && c.dropout < 1, fmt::format("dropout must be in [0, 1), got {}", c.dropout));
  require(c.steps >= 1, fmt::format("steps must be >= 1, got {}", c.steps));
  require(c.batch_size >= 1, fmt::format("batch_size must be >= 1, got {}", c.batch_size));
  require(c.grad_accum >= 1, fmt::format("grad_accum must be >= 1, got {}", c.grad_accum));
  require(c.lr > 0, fmt::format("lr must be > 0, got {}", c.lr));
  require(c.warmup >= 0 && c.warmup < c.steps, fmt::format("warmup must be in [0, steps = {}), got {}", c.steps, c.warmup));
  require(c.min_lr_ratio >= 0 && c.min_lr_ratio <= 1, fmt::format("min_lr_ratio must be in [0, 1], got {}", c.min_lr_ratio));
  require(c.weight_decay >= 0, fmt::format("weight_decay must be >= 0, got {}", c.weight_decay));
  require(c.clip >= 0, fmt::format("clip must be >= 0, got {}", c.clip));
  require(c.eval_every >= 0 && c.log_every >= 1 && c.eval_batches >= 0,
          fmt::format("need eval_every >= 0, log_every >= 1 and eval_batches >= 0, got {}, {} and {}", c.eval_every,
                      c.log_every, c.eval_batches));
  require(!c.out.empty(), "out (the run directory) must not be empty");
  parse_device(c.device);
}

std::string to_json(const TrainConfig& config) {
  nlohmann::ordered_json j;
  for_each_field(config, [&](const char* key, const auto& value) { j[key] = value; });
  return j.dump();
}

std::vector<FieldDifference> differing_fields(const TrainConfig& a, const TrainConfig& b) {
  const auto ja = nlohmann::ordered_json::parse(to_json(a)), jb = nlohmann::ordered_json::parse(to_json(b));
  std::vector<FieldDifference> out;
  for (const auto& [key, value] : ja.items())
    if (jb.at(key) != value) out.push_back({key, value.dump(), jb.at(key).dump()});
  return out;
}

TrainConfig config_from_json(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error("config", fmt::format("invalid JSON: {}", e.what()));
  }
  if (!j.is_object()) throw Error("config", "expected a JSON object");
  TrainConfig c;
  for_each_field(c, [&](const char* key, auto& value) {
    if (!j.contains(key)) return;
    try {
      j.at(key).get_to(value);
    } catch (const nlohmann::json::exception& e) {
      throw Error("config", fmt::format("field \"{}\": {}", key, e.what()));
    }
  });
  return c;
}

Device parse_device(const std::string& name) {
  if (name == "cpu") return Device::cpu();
  if (name == "cuda") return Device::cuda(0);
  if (name.starts_with("cuda:")) {
    int index = -1;
    const char* first = name.data() + 5;
    const char* last = name.data() + name.size();
    auto [end, ec] = std::from_chars(first, last, index);
    if (ec == std::errc() && end == last && first != last && index >= 0) return Device::cuda(index);
  }
  throw Error("device", fmt::format("unknown device \"{}\" (cpu, cuda or cuda:N)", name));
}

}  // namespace tg::train
