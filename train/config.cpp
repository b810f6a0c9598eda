#include "train/config.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/json_fields.h"
#include "core/io/untrusted_text.h"
#include "train/registry/registry.h"
#include "train/seq2seq_data.h"

namespace tg::train {

namespace {

// Every field once, for both directions of the JSON conversion.
template <class Config, class F> void for_each_field(Config& c, F&& f) {
  f("task", c.task), f("data", c.data), f("min_len", c.min_len), f("max_len", c.max_len);
  f("modulus", c.modulus), f("block_size", c.block_size), f("val_examples", c.val_examples);
  f("val_fraction", c.val_fraction), f("val_data", c.val_data), f("ignore_tokens", c.ignore_tokens);
  f("data_sha256", c.data_sha256), f("val_data_sha256", c.val_data_sha256), f("token_sep", c.token_sep);
  f("tokenizer", c.tokenizer), f("tokenizer_sha256", c.tokenizer_sha256);
  f("arch", c.arch), f("tie_weights", c.tie_weights);
  f("d_model", c.d_model), f("heads", c.heads), f("layers", c.layers), f("ff", c.ff), f("dropout", c.dropout);
  f("steps", c.steps), f("batch_size", c.batch_size), f("grad_accum", c.grad_accum), f("lr", c.lr);
  f("warmup", c.warmup), f("min_lr_ratio", c.min_lr_ratio), f("weight_decay", c.weight_decay);
  f("clip", c.clip);
  f("eval_every", c.eval_every), f("log_every", c.log_every), f("eval_batches", c.eval_batches);
  f("seed", c.seed), f("device", c.device), f("out", c.out), f("composed", c.composed);
  f("checkpoint_activations", c.checkpoint_activations), f("numerics", c.numerics);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw Error("config", what);
}

void require_in(const char* field, int64_t value, int64_t lo, int64_t hi) {
  require(value >= lo && value <= hi, fmt::format("{} must be in [{}, {}], got {}", field, lo, hi, value));
}

// NaN and the infinities fail every comparison below but the first.
void require_finite_in(const char* field, double value, double lo, double hi) {
  require(std::isfinite(value) && value >= lo && value <= hi,
          fmt::format("{} must be a finite number in [{}, {}], got {}", field, lo, hi, value));
}

}  // namespace

int64_t scaled_warmup(const TrainConfig& config) { return std::min(config.warmup, config.steps / 10); }

void validate(const TrainConfig& c) {
  require(is_task(c.task), fmt::format("unknown task \"{}\" ({})", c.task, one_of(task_names())));
  require(is_arch(c.arch), fmt::format("unknown arch \"{}\" ({})", c.arch, one_of(arch_names())));
  const Task& task = task_named(c.task);
  const Arch& arch = arch_named(c.arch);
  require(task.required_data.empty() || !c.data.empty(),
          fmt::format("task {} needs a data file (--data {})", task.name, task.required_data));
  require_in("min_len", c.min_len, 1, kMaxSequenceLength);
  require_in("max_len", c.max_len, c.min_len, kMaxSequenceLength);
  require_in("modulus", c.modulus, 2, kMaxModulus);
  require_in("block_size", c.block_size, 1, kMaxSequenceLength);
  require_in("val_examples", c.val_examples, 1, kMaxExamples);
  require(c.val_fraction > 0 && c.val_fraction < 1, fmt::format("val_fraction must be in (0, 1), got {}", c.val_fraction));
  require(c.val_data.empty() || task.reads_field("val_data"),
          fmt::format("val_data is read by task {} only, not {}", one_of(tasks_reading("val_data")), c.task));
  for (const std::string& token : c.ignore_tokens) require(!token.empty(), "ignore_tokens: a token cannot be empty");
  require(c.tokenizer.empty() || task.reads_field("tokenizer"),
          fmt::format("tokenizer is read by task {} only, not {}", one_of(tasks_reading("tokenizer")), c.task));
  require(c.tokenizer.empty() || task.text || arch.decodes_sequences,
          fmt::format("tokenizer is read by task {} for a text or with arch {} for pairs, not with arch {}", c.task,
                      one_of(arch_names_where(&Arch::decodes_sequences)), c.arch));
  require(c.tokenizer.empty() || c.token_sep.empty(),
          "token_sep splits text into words; a tokenizer's tokens are its own: give one of them");
  require(c.token_sep.empty() || (task.reads_field("token_sep") && arch.decodes_sequences),
          fmt::format("token_sep is read by task {} with arch {} (pair files), not task {} with arch {}",
                      one_of(tasks_reading("token_sep")), one_of(arch_names_where(&Arch::decodes_sequences)), c.task,
                      c.arch));
  if (const std::string problem = token_sep_problem(c.token_sep); !problem.empty())
    throw Error("config", "token_sep " + problem);
  for (const auto& [field, hash] : {std::pair{"data_sha256", &c.data_sha256},
                                    std::pair{"val_data_sha256", &c.val_data_sha256},
                                    std::pair{"tokenizer_sha256", &c.tokenizer_sha256}})
    require(hash->empty() || (hash->size() == 64 && hash->find_first_not_of("0123456789abcdef") == std::string::npos),
            fmt::format("{} must be 64 lowercase hex digits (a SHA-256) or empty", field));
  if (const auto refusal = pairing_refusal(c, "")) throw Error("config", refusal->field + " " + refusal->why);
  require(!c.tie_weights || arch.ties_weights,
          fmt::format("tie_weights needs arch {}, got {}", one_of(arch_names_where(&Arch::ties_weights)), c.arch));
  require_in("d_model", c.d_model, 1, kMaxDModel);
  require_in("heads", c.heads, 1, c.d_model);
  require(c.d_model % c.heads == 0,
          fmt::format("d_model ({}) must be a positive multiple of heads ({})", c.d_model, c.heads));
  require_in("layers", c.layers, 1, kMaxLayers);
  require_in("ff", c.ff, 1, kMaxFeedForward);
  require_finite_in("dropout", c.dropout, 0, kMaxDropout);
  require_in("steps", c.steps, 1, kMaxSteps);
  require_in("batch_size", c.batch_size, 1, kMaxBatchSize);
  require_in("grad_accum", c.grad_accum, 1, kMaxBatchSize);
  require(c.steps <= kMaxExamples / c.batch_size / c.grad_accum,
          fmt::format("steps * batch_size * grad_accum must be <= {}, got {} * {} * {}", kMaxExamples, c.steps,
                      c.batch_size, c.grad_accum));
  require(std::isfinite(c.lr) && c.lr > 0, fmt::format("lr must be a finite number > 0, got {}", c.lr));
  require(c.warmup >= 0 && c.warmup < c.steps, fmt::format("warmup must be in [0, steps = {}), got {}", c.steps, c.warmup));
  require_finite_in("min_lr_ratio", c.min_lr_ratio, 0, 1);
  require(std::isfinite(c.weight_decay) && c.weight_decay >= 0,
          fmt::format("weight_decay must be a finite number >= 0, got {}", c.weight_decay));
  require(std::isfinite(c.clip) && c.clip >= 0, fmt::format("clip must be a finite number >= 0, got {}", c.clip));
  require_in("eval_every", c.eval_every, 0, kMaxSteps);
  require_in("log_every", c.log_every, 1, kMaxSteps);
  require_in("eval_batches", c.eval_batches, 0, kMaxSteps);
  require(!c.out.empty(), "out (the run directory) must not be empty");
  parse_device(c.device);
  require_in("numerics", c.numerics, kFirstNumerics, kLatestNumerics);
}

namespace {

nlohmann::ordered_json every_field(const TrainConfig& config) {
  nlohmann::ordered_json j;
  for_each_field(config, [&](const char* key, const auto& value) { j[key] = value; });
  return j;
}

}  // namespace

std::string to_json(const TrainConfig& config) {
  nlohmann::ordered_json j = every_field(config);
  // Fields added since the first checkpoints are written when set, so that a run that uses none
  // of them stores the config an older tapegrad stored (its checkpoint the same bytes).
  for (const char* key : {"token_sep", "tokenizer", "tokenizer_sha256"})
    if (j[key] == "") j.erase(key);
  if (!config.checkpoint_activations) j.erase("checkpoint_activations");
  if (config.numerics == kFirstNumerics) j.erase("numerics");
  return j.dump();
}

std::vector<FieldDifference> differing_fields(const TrainConfig& a, const TrainConfig& b) {
  const auto ja = every_field(a), jb = every_field(b);
  std::vector<FieldDifference> out;
  for (const auto& [key, value] : ja.items())
    if (jb.at(key) != value) out.push_back({key, value.dump(), jb.at(key).dump()});
  return out;
}

TrainConfig config_from_json(const std::string& text) {
  const nlohmann::json j = parse_object(text, "the config", "config");
  TrainConfig c;
  c.numerics = kFirstNumerics;  // a config without it was written before numerics versions existed
  std::set<std::string> known;
  for_each_field(c, [&](const char* key, auto& value) {
    read_field(j, key, value, "config");
    known.insert(key);
  });
  for (const auto& [key, value] : j.items())
    require(known.contains(key), fmt::format("unknown field \"{}\"", excerpt(key)));
  return c;
}

std::string path_for_run(const std::string& path, const std::filesystem::path& run_dir) {
  namespace fs = std::filesystem;
  const fs::path file = fs::absolute(path).lexically_normal();
  fs::path dir = fs::absolute(run_dir).lexically_normal();
  if (!dir.has_filename()) dir = dir.parent_path();  // "runs/x/" -> "runs/x"
  const fs::path inside = file.lexically_relative(dir);
  const bool is_inside = !inside.empty() && *inside.begin() != ".." && inside != ".";
  return (is_inside ? inside : file).string();
}

std::filesystem::path path_in_run(const std::string& stored, const std::filesystem::path& run_dir) {
  const std::filesystem::path p(stored);
  return p.is_absolute() ? p : run_dir / p;
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
