#include "train/pytorch_export.h"

#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/output_directory.h"
#include "data/bpe_file.h"
#include "nn/pytorch_interop.h"
#include "train/registry/registry.h"
#include "train/run_data.h"
#include "train/task_data.h"

namespace tg::train {

namespace {

// "d_model 32, 2 heads, 1 layers, ff 64, vocabulary 15, 15 classes, max_len 9"
std::string describe(const ModelConfig& m) {
  return fmt::format("d_model {}, {} heads, {} layers, ff {}, vocabulary {}, {} classes, max_len {}{}", m.d_model,
                     m.heads, m.layers, m.ff, m.vocab_size, m.num_classes, m.max_len, m.causal ? ", causal" : "");
}

// tapegrad_model.py's TapegradModel has the architectures that say exports_to_pytorch.
void require_exportable(const char* op, const Checkpoint& c) {
  if (!arch_named(c.model_config.arch).exports_to_pytorch)
    throw Error(op, fmt::format("the run's model is arch {}; the PyTorch export (tapegrad_model.py) has the {} "
                                "architecture only", c.model_config.arch,
                                one_of(arch_names_where(&Arch::exports_to_pytorch))));
}

constexpr const char* kExportedTokenizer = "tokenizer.json";

// A BPE run's tokenizer file, byte for byte; nullopt for a run whose tokens are characters.
std::optional<std::string> run_tokenizer_file(const Checkpoint& c, const std::filesystem::path& run_dir) {
  if (c.config.tokenizer.empty()) return std::nullopt;
  run_text_tokens(c, run_dir);  // throws unless the file is the run's and spells the model's vocabulary
  TrainConfig config = c.config;
  config.out = run_dir.string();
  const InputFile file = open_run_data(config, RunDataFile::tokenizer);
  std::string bytes = file.read_all();
  if (data::sha256_hex(bytes) != c.config.tokenizer_sha256)  // read again after the check: the same bytes?
    file.fail("the file changed while it was exported");
  return bytes;
}

}  // namespace

std::vector<std::string> export_pytorch(const Checkpoint& c, const std::filesystem::path& run_dir,
                                        const std::filesystem::path& dir) {
  require_exportable("export", c);
  const std::optional<std::string> tokenizer = run_tokenizer_file(c, run_dir);
  // The whole directory at once: never the new model beside an old config. An earlier export
  // may hold Python's __pycache__ of tapegrad_model.py.
  OutputDirectory out("export", dir, {"model.safetensors", "config.json", kExportedTokenizer, "tapegrad_model.py",
                                      "__pycache__"});
  std::vector<std::string> written{"model.safetensors", "config.json"};
  nn::save_pytorch_safetensors(*load_model(c), out.file("model.safetensors"));
  nlohmann::ordered_json config{{"format", kPytorchExportFormat},
                                {"task", c.config.task},
                                {"model", nlohmann::ordered_json::parse(to_json(c.model_config))},
                                {"input_vocab", c.input_vocab.tokens()},
                                {"output_vocab", c.output_vocab.tokens()}};
  if (tokenizer) {
    config["tokenizer"] = kExportedTokenizer;
    write_file_atomically("export", out.file(kExportedTokenizer), *tokenizer);
    written.emplace_back(kExportedTokenizer);
  }
  write_file_atomically("export", out.file("config.json"), config.dump(2) + "\n");
  write_file_atomically("export", out.file("tapegrad_model.py"), tapegrad_model_py());
  written.emplace_back("tapegrad_model.py");
  out.commit();
  return written;
}

Checkpoint import_pytorch(Checkpoint c, const std::filesystem::path& state_dict) {
  require_exportable("import", c);
  if (!std::filesystem::is_regular_file(state_dict))
    throw Error("import", fmt::format("{}: no such file", state_dict.string()));
  auto model = load_model(c);
  try {
    nn::load_pytorch_safetensors(*model, state_dict);
  } catch (const Error& e) {
    throw Error("import", fmt::format("cannot load {} into the run's model ({}): {}", state_dict.string(),
                                      describe(c.model_config), e.what()));
  }
  c.model = model->state_dict();
  return c;
}

}  // namespace tg::train
