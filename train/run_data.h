#pragma once
// The data files of a run. A run stores each data path it reads (TrainConfig::data, val_data,
// tokenizer) with the SHA-256 of the file's content (data_sha256, ...), and a path stored in a
// run is read only while the file there still has that content.
//
// Why: a checkpoint is a file anyone can hand over, and its config names paths. Were they read
// unchecked, `eval RUN` or `explore RUN` on a downloaded run would open any file its author
// chose (~/.ssh/id_rsa, a project's secrets) and print its lines as examples. With the hash,
// a stored path is read only when the file there is one whose content the run's author already
// had (they computed its SHA-256): reading it shows them nothing new. A file that changed, or a
// run without hashes (from before tapegrad stored them), is refused with a message naming the
// file and asking for --data: the user then names a file, which is theirs to vouch for.
//
// Every reading of a run's data path goes through open_run_data: make_task_data (train, resume,
// eval, explore, report), make_seq2seq_data, eval's validation set and run_tokenizer (sample, eval).
#include <string>

#include "core/io/input_file.h"
#include "train/config.h"

namespace tg::train {

enum class RunDataFile { data, val_data, tokenizer };

// The SHA-256 of a file's content, as 64 lowercase hex digits; the file is read to its end, a
// chunk at a time.
std::string sha256_hex(const InputFile& file);

// Records the SHA-256 of the data file `which` of `config` (a relative path: in config.out) in
// its data_sha256 or val_data_sha256 ("" when the config names no such file): for the paths a
// user gave (train's --data and --val-data), which are theirs to vouch for.
void record_data_hash(TrainConfig& config, RunDataFile which);

// The data file the config names (relative paths: in config.out), opened once its content is
// checked against the hash stored beside the path:
//   "data: runs/x/corpus.txt (the run's --data, stored as "corpus.txt"): the file's content is
//    not the run's (SHA-256 9f86d081884c7d65... recorded, 2c26b46b68ffc68f... now: the file
//    changed): a path stored in a run is read only while its file is unchanged; give the file
//    with --data"
InputFile open_run_data(const TrainConfig& config, RunDataFile which);

}  // namespace tg::train
