#pragma once
// A run's records are what a command's output flag must never replace (`report RUN --out
// RUN/checkpoint.safetensors` once clobbered the checkpoint): the checkpoint, metrics.jsonl,
// metrics.csv, the lock file (train/run_lock.h) and the data files its config names. A
// command's own output (report.html for report, metrics.csv that report --csv rewrites) is not
// checked here.
#include <filesystem>
#include <string_view>
#include <vector>

#include "train/config.h"

namespace tg::train {

// The records of the run whose checkpoint is `checkpoint` (a run directory's
// checkpoint.safetensors, or a checkpoint file given by name): the file itself, the directory's
// checkpoint.safetensors, metrics.jsonl, metrics.csv and lock file, and with `config` its data files.
std::vector<std::filesystem::path> run_records(const std::filesystem::path& checkpoint,
                                               const TrainConfig* config = nullptr);

// Throws tg::Error(op, ...) naming `flag`, `out` and the record when the file `out` is one of
// `records`, or one of the records of a run in out's own directory or in the directory a link
// at `out` leads to (a run directory: one holding checkpoint.safetensors or metrics.jsonl). Compared by what the paths name: the same file
// (device and inode: a link or "RUN/./checkpoint.safetensors" is caught) or, for a file not
// written yet, the same path once "." , ".." and links are resolved.
void refuse_run_record(const char* op, std::string_view flag, const std::filesystem::path& out,
                       std::vector<std::filesystem::path> records = {});

}  // namespace tg::train
