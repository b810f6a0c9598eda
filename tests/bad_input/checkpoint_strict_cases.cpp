// Bad-input matrix rows: what a checkpoint must hold exactly (every tensor of its dtype and
// finite, the optimizer's state complete and at the run's step, the JSON metadata of exact
// types), imported weights, the messages of the train command's --device and --out, and data
// quoted in an error message reaching the terminal escaped. See bad_input_case.h. The rows
// edit copies of one tiny two-step copy-task run, made on first use.
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>

#include <nlohmann/json.hpp>

#include "bad_input/bad_input_case.h"
#include "core/factories.h"
#include "core/io/safetensors.h"
#include "nn/pytorch_interop.h"
#include "train/checkpoint.h"
#include "train/pytorch_export.h"
#include "train/train_test_util.h"
#include "train/trainer.h"

namespace tg::test {

namespace {

namespace fs = std::filesystem;

using Tensors = NamedTensors;
using Meta = SafetensorsMetadata;
using Edit = std::function<void(Tensors&, Meta&)>;

struct StrictRun {
  TempDir dir{"bad_input_strict"};
  fs::path good = dir.path() / "run" / "checkpoint.safetensors";

  StrictRun() {
    train::TrainConfig c = tiny_config("copy", dir.path() / "run");
    c.d_model = 16, c.heads = 2, c.ff = 16, c.steps = 2, c.warmup = 1, c.batch_size = 8, c.val_examples = 16;
    train::Trainer(c, {.console = nullptr}).fit();
  }
};

const StrictRun& shared_run() {
  static const StrictRun run;
  return run;
}

Tensor& entry(NamedTensors& tensors, const std::string& name) {
  for (auto& [key, t] : tensors)
    if (key == name) return t;
  throw std::runtime_error("the shared run's checkpoint has no " + name);
}

void erase_prefix(NamedTensors& tensors, const std::string& prefix) {
  std::erase_if(tensors, [&](const auto& e) { return e.first.starts_with(prefix); });
}

// A JSON metadata entry with one field set to `value`, or removed when it is null.
void set_json(Meta& meta, const std::string& key, const std::string& field, const nlohmann::json& value) {
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(meta.at(key));
  if (value.is_null()) j.erase(field);
  else j[field] = value;
  meta[key] = j.dump();
}

// The shared run's checkpoint with `edit` applied, saved under `name` (valid checksums).
std::string edited_checkpoint(const std::string& name, const Edit& edit) {
  SafetensorsFile f = load_safetensors(shared_run().good);
  edit(f.tensors, f.metadata);
  const fs::path path = shared_run().dir.path() / (name + ".safetensors");
  save_safetensors(path, f.tensors, f.metadata);
  return path.string();
}

// A row loading an edited checkpoint; the outcome must name the file.
BadInputCase checkpoint_row(std::string name, std::string file, Edit edit, std::vector<std::string> expected) {
  return {std::move(name),
          [file, edit, expected] {
            const std::string path = edited_checkpoint(file, edit);
            const std::string outcome = outcome_of([&] { train::load_checkpoint(path); });
            const bool named = outcome.find("checkpoint: " + path + ": ") != std::string::npos;
            return named || outcome == "no error" ? outcome : "(the file is not named) " + outcome;
          },
          std::move(expected)};
}

// A row importing the shared run's weights in PyTorch's names, edited (train::import_pytorch).
BadInputCase import_row(std::string name, std::function<void(NamedTensors&)> edit, std::vector<std::string> expected) {
  return {std::move(name),
          [edit] {
            const train::Checkpoint c = train::load_checkpoint(shared_run().good);
            NamedTensors state = nn::to_pytorch_state_dict(train::load_model(c)->state_dict());
            edit(state);
            const fs::path path = shared_run().dir.path() / "pytorch.safetensors";
            save_safetensors(path, state);
            return outcome_of([&] { train::import_pytorch(c, path); });
          },
          std::move(expected)};
}

BadInputCase cli_row(std::string name, std::function<std::vector<std::string>()> args,
                     std::vector<std::string> expected) {
  return {std::move(name), [args] { return cli_outcome(args()); }, std::move(expected)};
}

std::vector<std::string> tiny_train(const std::vector<std::string>& more) {
  std::vector<std::string> args = {"train", "--task", "copy", "--steps", "2", "--warmup", "1", "--d-model", "16",
                                   "--heads", "2", "--layers", "1", "--ff", "16"};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const std::string kTerminalEscapes = "\x1b]0;TITLE\x07\x1b[2J\xe2\x80\xae";

}  // namespace

std::vector<BadInputCase> checkpoint_strict_cases() {
  const std::string state = "optimizer.state.embedding.weight.";
  return {
      // ---- non-finite values ---------------------------------------------------------------
      checkpoint_row("checkpoint: a NaN weight", "nan_weight",
                     [](Tensors& t, Meta&) { entry(t, "model.embedding.weight").data<float>()[3] = NAN; },
                     {"\"model.embedding.weight\" holds nan at element 3", "finite"}),
      checkpoint_row("checkpoint: an infinite optimizer buffer", "inf_state",
                     [state](Tensors& t, Meta&) { entry(t, state + "exp_avg_sq").data<float>()[0] = INFINITY; },
                     {"\"" + state + "exp_avg_sq\" holds inf at element 0"}),
      checkpoint_row("checkpoint: a NaN learning rate in the optimizer", "nan_lr",
                     [](Tensors& t, Meta&) { entry(t, "optimizer.group.decay.lr").data<double>()[0] = kNaN; },
                     {"\"optimizer.group.decay.lr\" holds nan at element 0"}),
      // ---- exact dtypes --------------------------------------------------------------------
      checkpoint_row("checkpoint: an int64 tensor where float32 belongs", "i64_weight",
                     [](Tensors& t, Meta&) {
                       Tensor& w = entry(t, "model.head.weight");
                       w = zeros(w.shape(), kI64);
                     },
                     {"\"model.head.weight\" is int64 (", "expected float32"}),
      checkpoint_row("checkpoint: a bool tensor where float32 belongs", "bool_state",
                     [state](Tensors& t, Meta&) {
                       Tensor& w = entry(t, state + "exp_avg");
                       w = zeros(w.shape(), kBool);
                     },
                     {"\"" + state + "exp_avg\" is bool (", "expected float32"}),
      checkpoint_row("checkpoint: a float32 optimizer step", "f32_step",
                     [state](Tensors& t, Meta&) { entry(t, state + "step") = scalar(2, kF32); },
                     {"\"" + state + "step\" is float32 ()", "expected int64"}),
      // ---- the optimizer's state complete, at the run's step --------------------------------
      checkpoint_row("checkpoint: one parameter's optimizer state missing", "missing_state",
                     [state](Tensors& t, Meta&) { erase_prefix(t, state); },
                     {"the optimizer state is incomplete after 2 steps: " + state + "step missing"}),
      checkpoint_row("checkpoint: an optimizer step of 2^62", "huge_step",
                     [state](Tensors& t, Meta&) { entry(t, state + "step").data<int64_t>()[0] = int64_t{1} << 62; },
                     {"\"" + state + "step\" must be one int64 equal to trainer.step (2)", "got 4611686018427387904"}),
      checkpoint_row("checkpoint: an optimizer step behind the run's", "behind_step",
                     [state](Tensors& t, Meta&) { entry(t, state + "step").data<int64_t>()[0] = 1; },
                     {"\"" + state + "step\" must be one int64 equal to trainer.step (2)", "got 1"}),
      // ---- the JSON metadata, of exact types -----------------------------------------------
      checkpoint_row("checkpoint: config d_model 16.7", "fractional",
                     [](Tensors&, Meta& m) { set_json(m, "config", "d_model", 16.7); },
                     {"config: field \"d_model\" must be an integer, got 16.7"}),
      checkpoint_row("checkpoint: config d_model \"16\"", "string_number",
                     [](Tensors&, Meta& m) { set_json(m, "config", "d_model", "16"); },
                     {"config: field \"d_model\" must be an integer, got \"16\" (a string)"}),
      checkpoint_row("checkpoint: config lr a string", "string_lr",
                     [](Tensors&, Meta& m) { set_json(m, "config", "lr", "fast"); },
                     {"config: field \"lr\" must be a number, got \"fast\" (a string)"}),
      checkpoint_row("checkpoint: config seed -1", "negative_seed",
                     [](Tensors&, Meta& m) { set_json(m, "config", "seed", -1); },
                     {"config: field \"seed\" must be an integer in [0, 2^64), got -1"}),
      checkpoint_row("checkpoint: config with an unknown field", "unknown_field",
                     [](Tensors&, Meta& m) { set_json(m, "config", "d_modle", 32); },
                     {"config: unknown field \"d_modle\""}),
      checkpoint_row("checkpoint: config nested 100000 deep", "deep_config",
                     [](Tensors&, Meta& m) { m["config"] = std::string(100000, '[') + std::string(100000, ']'); },
                     {"config: the config nests arrays and objects more than 4 deep"}),
      checkpoint_row("checkpoint: model metadata without ff and heads", "missing_model_field",
                     [](Tensors&, Meta& m) {
                       set_json(m, "model", "ff", nullptr);
                       set_json(m, "model", "heads", nullptr);
                     },
                     {"model metadata: has no fields \"heads\", \"ff\""}),
      checkpoint_row("checkpoint: model metadata causal 1", "model_causal_number",
                     [](Tensors&, Meta& m) { set_json(m, "model", "causal", 1); },
                     {"model metadata: field \"causal\" must be true or false, got 1"}),
      checkpoint_row("checkpoint: a vocabulary entry that is a number", "vocab_number",
                     [](Tensors&, Meta& m) { m["output_vocab"] = "[\"A\", 7]"; },
                     {"output_vocab should be a JSON array of strings: entry 1 is 7"}),
      // ---- imported weights ----------------------------------------------------------------
      import_row("import: a NaN weight",
                 [](NamedTensors& s) { entry(s, "embedding.weight").data<float>()[5] = NAN; },
                 {"import", "'embedding.weight' holds nan at element 5", "weights must be finite"}),
      import_row("import: an int64 weight",
                 [](NamedTensors& s) {
                   Tensor& w = entry(s, "head.bias");
                   w = zeros(w.shape(), kI64);
                 },
                 {"import", "'head.bias'", "int64", "a weight must be float32 or float64"}),
      // ---- the train command's messages ------------------------------------------------------
      cli_row("train --device cuda:1000",
              [] { return tiny_train({"--device", "cuda:1000", "--out", (shared_run().dir.path() / "gpu").string()}); },
              {"exit 2: ", "--device", "cuda:1000: ", "train on the CPU with --device cpu"}),
      cli_row("train --out a file",
              [] { return tiny_train({"--out", shared_run().good.string()}); },
              {"exit 2: ", "--out", shared_run().good.string() + " is a file, not a directory"}),
      // ---- data quoted in an error message, on the terminal ---------------------------------
      cli_row("eval: a repeated token holding terminal escapes, quoted in the message",
              [] {
                return std::vector<std::string>{
                    "eval", edited_checkpoint("escapes", [](Tensors&, Meta& m) {
                      m["input_vocab"] = nlohmann::json({"a", kTerminalEscapes, kTerminalEscapes}).dump();
                    })};
              },
              {"exit 1: ", "repeats the token \"\\x1B]0;TITLE\\x07\\x1B[2J\\u202E\""}),
  };
}

}  // namespace tg::test
