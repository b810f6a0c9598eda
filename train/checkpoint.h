#pragma once
// Checkpoints: one safetensors file (core/io/safetensors.h) holding everything a run needs to
// continue exactly where it stopped, and what eval and sample need to rebuild the model.
//
//   tensors   model.<name>        the model's state_dict (encoder.layers.0.linear1.weight, ...), float32
//             optimizer.<key>     the optimizer's state_dict (optim/optimizer.h): options and
//                                 learning rates float64, state.<name>.step int64, buffers float32
//             scheduler.step      the LR scheduler's count                (int64 scalar)
//             trainer.step        updates done                          (int64 scalars)
//             rng.seed, rng.offset  the global generator (dropout draws from it; uint64 bits)
//             loader.epoch, loader.batch  where the training DataLoader stands
//   metadata  format        "tapegrad-checkpoint 1"
//             config        the TrainConfig as JSON
//             model         the ModelConfig as JSON
//             input_vocab, output_vocab   the vocabularies' tokens, a JSON array each
//
// Saving is atomic and never through a link (save_safetensors: core/io/output_file.h), so a
// crash or a full disk leaves the previous checkpoint as it was; a non-finite value is not
// saved at all (the run has diverged: the previous checkpoint stays the last good one).
// Loading checks everything: a truncated or corrupt file, a missing entry, an unknown format, a tensor of another dtype than
// the one above or holding a NaN or an infinity, an optimizer state missing for a model tensor
// or at another step than trainer.step, a metadata field of the wrong JSON type is a
// tg::Error("checkpoint", "<path>: ...") naming it (docs/design.md, "Untrusted input").
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "core/io/safetensors.h"
#include "data/dataloader.h"
#include "data/vocab.h"
#include "optim/optimizer.h"
#include "train/config.h"
#include "train/model.h"

namespace tg::train {

inline constexpr const char* kCheckpointFormat = "tapegrad-checkpoint 1";

struct Checkpoint {
  TrainConfig config;
  ModelConfig model_config;
  data::Vocab input_vocab, output_vocab;
  NamedTensors model;      // names without the "model." prefix
  StateDict optimizer;     // names without the "optimizer." prefix
  StateDict scheduler;     // {"scheduler.step", ...} as Scheduler::state_dict gives them
  int64_t step = 0;
  uint64_t rng_seed = 0, rng_offset = 0;
  data::LoaderState loader;
};

void save_checkpoint(const std::filesystem::path& path, const Checkpoint& checkpoint);
Checkpoint load_checkpoint(const std::filesystem::path& path);

// The model the checkpoint describes, with its weights (in evaluation mode); a seq2seq checkpoint
// throws (its model is train/seq2seq_model.h's load_seq2seq_model).
std::unique_ptr<TransformerModel> load_model(const Checkpoint& checkpoint);

// The ModelConfig as the "model" metadata stores it: a JSON object of its fields.
std::string to_json(const ModelConfig& config);

// A checkpoint file, or a run directory holding checkpoint.safetensors.
std::filesystem::path checkpoint_file(const std::filesystem::path& file_or_run_dir);

}  // namespace tg::train
