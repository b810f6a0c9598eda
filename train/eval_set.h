#pragma once
// What `tapegrad eval` scores: examples encoded with a checkpoint's vocabularies, never with
// vocabularies rebuilt from the data (the same ids would then name other tokens).
//
//   validation_set  the run's validation set as training made it: the --val-data file whole,
//                   or rebuilt from the config (a labelled file's share, an lm text's end, the
//                   synthetic draws); data paths are found relative to the run directory, and
//                   read only while their files have the content stored (train/run_data.h)
//   file_set        every example of a file, nothing held out: a labelled .tsv/.jsonl file
//                   for task file, a text for task lm (windows of the model's length, side by
//                   side, each token read once; its tokens the run's: train/task_data.h run_text_tokens)
//
// A token the checkpoint's vocabulary lacks is an error naming the file, the line and the
// token (an unknown input has no embedding, an unknown output is a class the model cannot
// predict); so is a labelled example longer than the model's max_len.
#include <filesystem>
#include <memory>
#include <string>

#include "core/io/input_file.h"
#include "data/example.h"
#include "data/text_tokens.h"
#include "train/checkpoint.h"

namespace tg::train {

struct EvalSet {
  std::shared_ptr<const data::Dataset> examples;
  std::string name;               // "validation set", "test.jsonl (every line)", "text.txt (every window)"
  bool numbered_by_line = false;  // example i is line i + 1 of that file
  std::shared_ptr<const data::TextTokens> text = nullptr;  // lm: the text's tokens (bits per byte; null otherwise)
};

EvalSet validation_set(const Checkpoint& checkpoint, const std::filesystem::path& run_dir);
EvalSet file_set(const Checkpoint& checkpoint, const std::filesystem::path& run_dir, const std::string& path);
// The run's task's score_file.
EvalSet file_set(const Checkpoint& checkpoint, const std::filesystem::path& run_dir, const InputFile& file);

// The tasks' file_set (train/registry/task.h score_file): a labelled file's every line (task
// file), a text's windows of the model's max_len side by side (task lm).
EvalSet labelled_file_set(const Checkpoint& checkpoint, const std::filesystem::path& run_dir, const InputFile& file);
EvalSet text_file_set(const Checkpoint& checkpoint, const std::filesystem::path& run_dir, const InputFile& file);

}  // namespace tg::train
