#pragma once
// TrainConfig: everything a training run is made from. A checkpoint stores it as JSON in its
// metadata, so eval, sample and --resume rebuild the same task and model from the file alone.
//
// The tasks and archs, which fields each task reads and which archs it trains with, are
// described once in the registry (train/registry/registry.h; `tapegrad train --help` lists them):
//   copy, reverse, sort   symbol sequences of length min_len..max_len over "0123456789"
//   mod_add               "a+b=" -> (a + b) mod modulus
//   lm                    language model on `data` (a UTF-8 text file), or on the built-in
//                         grammar corpus when `data` is empty; windows of block_size tokens:
//                         characters, or a byte-level BPE `tokenizer`'s tokens (data/bpe_tokenizer.h)
//   file                  per-position labelling from `data` (a .tsv or .jsonl file); validation
//                         on `val_data` when given, else on a val_fraction share of `data`;
//                         with arch seq2seq, input/output pairs (data/seq2seq_file.h)
//   addition, number_words, sort_unique   sequence-to-sequence tasks (data/seq2seq_tasks.h;
//                         arch seq2seq only; sort_unique reads min_len and max_len)
// The synthetic tasks draw a fresh example for every index of the training set (seeded), so the
// model rarely sees the same one twice; their validation set is val_examples examples from a
// different seed; the lm task's validation windows do not overlap.
//
// Data paths (data, val_data, tokenizer) are absolute or relative to the run directory (out), so that a
// run directory can be evaluated from any working directory, or copied: path_for_run() makes
// them so. Each is stored with the SHA-256 of the file's content, and read only while the file
// still has it (train/run_data.h).
//
// The defaults train reverse (sequences of 1-8 digits) with a 2-layer, d_model 64 model for
// 600 steps of 64 examples: 9.4-26 s of CPU time depending on the CPU (4.7-13 s on 2 idle
// cores), and 100% token accuracy and exact match on the 512 validation sequences (seed 0).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/device.h"
#include "core/numerics.h"

namespace tg::train {

struct TrainConfig {
  // ---- task ------------------------------------------------------------------------------
  std::string task = "reverse";
  std::string data;            // lm: text file ("" = grammar corpus); file: labelled .tsv / .jsonl
  int64_t min_len = 1;         // copy / reverse / sort: sequence lengths, inclusive
  int64_t max_len = 8;
  int64_t modulus = 97;        // mod_add
  int64_t block_size = 64;     // lm: tokens per window
  int64_t val_examples = 512;  // synthetic tasks: validation set size
  double val_fraction = 0.1;   // lm / file: the share held out for validation (lm: the text's end)
  std::string val_data;        // file: a separate validation file, scored whole ("" = the share above)
  std::string data_sha256;     // the SHA-256 of data's content, 64 hex digits ("" without data)
  std::string val_data_sha256;  // the SHA-256 of val_data's content
  std::string tokenizer;       // lm: a BPE tokenizer file (tok.json; "" = characters are the tokens)
  std::string tokenizer_sha256;  // the SHA-256 of tokenizer's content
  // file with arch seq2seq: the separator of a text side's tokens ("" = characters;
  // data/seq2seq_file.h), also the one printed between decoded tokens
  std::string token_sep;
  // Output tokens whose positions are left out of the token accuracy and exact match (a filler
  // such as "$"); the loss still counts them. Every task; each must be an output token.
  std::vector<std::string> ignore_tokens;

  // ---- model -----------------------------------------------------------------------------
  // "encoder" (the default), "gpt": train/model.h; "seq2seq": train/seq2seq_model.h (the registry:
  // train/registry/archs/)
  std::string arch = "encoder";
  bool tie_weights = false;      // gpt: the output head is the token embedding
  int64_t d_model = 64;
  int64_t heads = 4;
  int64_t layers = 2;          // seq2seq: encoder layers, and as many decoder layers
  int64_t ff = 256;
  double dropout = 0;

  // ---- optimisation (AdamW; linear warmup, then cosine decay to lr * min_lr_ratio) --------
  int64_t steps = 600;         // optimizer updates
  int64_t batch_size = 64;     // examples per micro-batch
  int64_t grad_accum = 1;      // micro-batches per update
  double lr = 3e-3;
  int64_t warmup = 50;
  double min_lr_ratio = 0.1;
  double weight_decay = 0.01;
  double clip = 1.0;           // max gradient norm; 0 = no clipping

  // ---- running ---------------------------------------------------------------------------
  int64_t eval_every = 100;        // steps between evaluations (and checkpoints); 0 = at the end only
  int64_t log_every = 50;          // steps between log lines when stdout is not a terminal
  int64_t eval_batches = 0;        // validation batches per evaluation; 0 = all
  uint64_t seed = 0;
  std::string device = "cpu";
  std::string out = "runs/tapegrad";  // checkpoint.safetensors, metrics.jsonl
  // The composed ("teaching") path: every op of the model on the tape separately, no fused ops
  // (nn::Module::set_composed); the same results to float tolerance, slower.
  bool composed = false;
  // Each Transformer layer's activations recomputed in the backward instead of kept
  // (core/checkpoint.h): less memory, about one more forward per step; the same losses to float
  // tolerance. Stored in the run's config only when true.
  bool checkpoint_activations = false;
  // The version of the float32 CPU arithmetic the run rounds with (core/numerics.h): the latest
  // for a fresh run; a run keeps its own. Stored in the run's config when not 1, so that a
  // checkpoint without it (written before versions existed) is version 1.
  int64_t numerics = kLatestNumerics;

  bool operator==(const TrainConfig&) const = default;
};

// Upper bounds on a run's sizes, so that no product of them overflows and a checkpoint cannot
// describe a model or a run larger than any the program makes. validate() enforces them and
// the train command's flags check them as they are parsed.
inline constexpr int64_t kMaxSequenceLength = int64_t{1} << 16;  // min_len, max_len, block_size, a model's max_len
inline constexpr int64_t kMaxDModel = int64_t{1} << 14;
inline constexpr int64_t kMaxFeedForward = int64_t{1} << 16;
inline constexpr int64_t kMaxLayers = 1024;
inline constexpr int64_t kMaxVocab = int64_t{1} << 24;         // tokens of a vocabulary (a model's classes too)
inline constexpr int64_t kMaxSteps = int64_t{1} << 40;         // steps, warmup, eval_every, log_every, eval_batches
inline constexpr int64_t kMaxBatchSize = int64_t{1} << 20;     // batch_size, grad_accum
inline constexpr int64_t kMaxExamples = int64_t{1} << 40;      // steps * batch_size * grad_accum, val_examples
inline constexpr int64_t kMaxModulus = int64_t{1} << 40;
inline constexpr double kMaxDropout = 0.99;  // dropout is in [0, kMaxDropout]: the config, --dropout, a model

// The defaults of `train --arch seq2seq` (train/seq2seq_task.h): a TrainConfig{} with arch
// seq2seq and task addition, and the model and optimisation fields tuned for it (defined with the
// arch, train/registry/archs/seq2seq.cpp; docs/guide.md "Model shapes" says what they reach).
TrainConfig seq2seq_defaults();

// The warmup of a fresh run that gives none: the arch's default warmup, at most a tenth of its
// steps (`tapegrad train` without --warmup, and the lab's training).
int64_t scaled_warmup(const TrainConfig& config);

// Throws tg::Error("config", ...) naming the first field out of range and its limits (lr,
// weight_decay and clip need only be finite).
void validate(const TrainConfig& config);

std::string to_json(const TrainConfig& config);
// The fields whose values differ, in declaration order, with both values as JSON.
struct FieldDifference {
  std::string field, a, b;
};
std::vector<FieldDifference> differing_fields(const TrainConfig& a, const TrainConfig& b);
// Fields missing from the JSON keep their defaults (a checkpoint written before the field
// existed); a field of the wrong JSON type (core/io/json_fields.h: 16.7 or "16" for an integer),
// an unknown field or invalid JSON throws tg::Error("config", ...) naming the field.
TrainConfig config_from_json(const std::string& json);

// A data path given relative to the working directory (or absolute), as a run in run_dir
// stores it: relative to run_dir when the file is inside it, absolute otherwise.
std::string path_for_run(const std::string& path, const std::filesystem::path& run_dir);
// The file a stored data path names for the run in run_dir.
std::filesystem::path path_in_run(const std::string& stored, const std::filesystem::path& run_dir);

// "cpu", "cuda", "cuda:N"; anything else throws tg::Error("device", ...).
Device parse_device(const std::string& name);

}  // namespace tg::train
