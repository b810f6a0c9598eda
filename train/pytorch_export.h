#pragma once
// A run to PyTorch and back (docs/guide.md, "From and to PyTorch").
//
// export_pytorch writes a directory of three or four files, whole or not at all
// (core/io/output_directory.h: written beside it, then renamed into place; an earlier export
// there is replaced, a directory holding anything else is refused):
//   model.safetensors   the model's state_dict in PyTorch's names and layout: exactly the
//                       state_dict of tapegrad_model.py's model for the run's arch
//                       (TapegradModel for encoder, GPT for gpt), since the names are tapegrad's
//                       with the attention's q/k/v packed into in_proj_* (nn/pytorch_interop.h).
//                       The encoder's sinusoidal table is a non-persistent buffer, in neither;
//                       gpt's learned table is pos_encoding.weight. A tied gpt head is no module
//                       of its own on either side (logits = x @ embedding.weight^T), so the table
//                       is saved once, as embedding.weight, and load_state_dict(strict=True) of
//                       GPT takes exactly that.
//   config.json         {"format": kPytorchExportFormat, "task": ..., "model": the ModelConfig
//                       (the model class's constructor arguments; "arch" and "tie_weights" for
//                       gpt, train/checkpoint.h), "input_vocab": [...], "output_vocab": [...]}
//                       with every token, the reserved ones first (id = index), and for a run on
//                       BPE tokens "tokenizer": "tokenizer.json"
//   tokenizer.json      a BPE run's tokenizer file (data/bpe_file.h), byte for byte: model id
//                       = 5 reserved ids + the tokenizer's id (data/text_tokens.h); a character
//                       run's tokens are its vocabulary in config.json
//   tapegrad_model.py   train/tapegrad_model.py: the models in torch.nn modules, a standard-library
//                       safetensors reader and writer, load(dir), and load_text_tokens(dir) (an lm
//                       run's text <-> model ids, the BPE encoding as data/bpe_tokenizer.h's)
//
// import_pytorch is the reverse: a safetensors state_dict in those names (e.g. saved from the
// exported model after training in PyTorch) replaces a run's weights. Everything else of the
// run stays as it was: config, vocabularies, tokenizer, step, optimizer state, data position.
//
// Both are for the encoder and gpt architectures (Arch::exports_to_pytorch); a seq2seq run is
// refused, naming it.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "train/checkpoint.h"

namespace tg::train {

inline constexpr const char* kPytorchExportFormat = "tapegrad-pytorch-export 1";

// Exports the run whose checkpoint is `checkpoint` (its relative data paths, the tokenizer's,
// are in `run_dir`) into `dir`; returns the names of the files written, in the order above.
// A BPE run's tokenizer file is read only while it is the run's (train/run_data.h).
std::vector<std::string> export_pytorch(const Checkpoint& checkpoint, const std::filesystem::path& run_dir,
                                        const std::filesystem::path& dir);

// The checkpoint with its model weights read from `state_dict` (strict: every entry of the
// model, no other). Throws tg::Error("import", ...) naming the file and the run's model, with
// every missing, unexpected and wrong-shaped entry in PyTorch's names and both shapes.
Checkpoint import_pytorch(Checkpoint checkpoint, const std::filesystem::path& state_dict);

// The text of train/tapegrad_model.py (compiled in by train/CMakeLists.txt: tapegrad_embed_files).
std::string_view tapegrad_model_py();

}  // namespace tg::train
