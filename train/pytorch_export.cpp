#include "train/pytorch_export.h"

#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/io/output_directory.h"
#include "nn/pytorch_interop.h"
#include "train/registry/registry.h"

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

}  // namespace

void export_pytorch(const Checkpoint& c, const std::filesystem::path& dir) {
  require_exportable("export", c);
  // The whole directory at once: never the new model beside an old config. An earlier export
  // may hold Python's __pycache__ of tapegrad_model.py.
  OutputDirectory out("export", dir, {"model.safetensors", "config.json", "tapegrad_model.py", "__pycache__"});
  nn::save_pytorch_safetensors(*load_model(c), out.file("model.safetensors"));
  const nlohmann::ordered_json config{{"format", kPytorchExportFormat},
                                      {"task", c.config.task},
                                      {"model", nlohmann::ordered_json::parse(to_json(c.model_config))},
                                      {"input_vocab", c.input_vocab.tokens()},
                                      {"output_vocab", c.output_vocab.tokens()}};
  write_file_atomically("export", out.file("config.json"), config.dump(2) + "\n");
  write_file_atomically("export", out.file("tapegrad_model.py"), tapegrad_model_py());
  out.commit();
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
