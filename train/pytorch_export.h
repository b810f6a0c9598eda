#pragma once
// A run to PyTorch and back (docs/guide.md, "From and to PyTorch").
//
// export_pytorch writes a directory of three files, whole or not at all (core/io/output_directory.h:
// written beside it, then renamed into place; an earlier export there is replaced, a directory
// holding anything else is refused):
//   model.safetensors   the model's state_dict in PyTorch's names and layout: exactly the
//                       state_dict of tapegrad_model.py's TapegradModel (the attention's q/k/v
//                       packed into in_proj_*, nn/pytorch_interop.h; the sinusoidal table is a
//                       non-persistent buffer, in neither)
//   config.json         {"format": kPytorchExportFormat, "task": ..., "model": the ModelConfig
//                       (TapegradModel's constructor arguments), "input_vocab": [...],
//                       "output_vocab": [...]} with every token, the reserved ones first (id =
//                       index)
//   tapegrad_model.py   train/tapegrad_model.py: the model in torch.nn modules, a standard-library
//                       safetensors reader and writer, and load(dir)
//
// import_pytorch is the reverse: a safetensors state_dict in those names (e.g. saved from
// TapegradModel after training in PyTorch) replaces a run's weights. Everything else of the
// run stays as it was: config, vocabularies, step, optimizer state, data position.
//
// Both are for the encoder architecture (ModelConfig::arch); a gpt run is refused, naming it.
#include <filesystem>
#include <string_view>

#include "train/checkpoint.h"

namespace tg::train {

inline constexpr const char* kPytorchExportFormat = "tapegrad-pytorch-export 1";

void export_pytorch(const Checkpoint& checkpoint, const std::filesystem::path& dir);

// The checkpoint with its model weights read from `state_dict` (strict: every entry of the
// model, no other). Throws tg::Error("import", ...) naming the file and the run's model, with
// every missing, unexpected and wrong-shaped entry in PyTorch's names and both shapes.
Checkpoint import_pytorch(Checkpoint checkpoint, const std::filesystem::path& state_dict);

// The text of train/tapegrad_model.py (compiled in by train/CMakeLists.txt: tapegrad_embed_files).
std::string_view tapegrad_model_py();

}  // namespace tg::train
