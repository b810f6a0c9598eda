#pragma once
// The tapegrad program (CLI11). Subcommands:
//   train      train a Transformer encoder on a task (train/trainer.h); --resume continues a run
//   eval       a checkpoint's loss and accuracy on its task's validation set
//   sample     text from a language-model checkpoint, greedy or with a temperature
//   trace      the forward tape of a tiny attention, entry by entry with values, then backward
//              one entry at a time with every gradient, and the tape as Graphviz DOT
//   gradcheck  tg::gradcheck over every op on small float64 inputs, as a table
//   report     report.html (curves, attention maps, config) from run directories, overlaid
//   export     a run's model for PyTorch: state_dict, model.py, vocabularies (train/pytorch_export.h)
//   import     a run with its weights replaced by a PyTorch state_dict
#include <cstdio>
#include <string>
#include <vector>

namespace tg::cli {

// Runs `tapegrad args...` (args[0] is the program's name). Results go to `out`, errors to
// `err`. Returns the exit status: 0 success, 1 a command failed (the error is printed),
// 2 bad arguments (CLI11's message and a hint), 128 + the signal when training was stopped by
// SIGINT (Ctrl-C: 130), SIGTERM (143) or SIGHUP (129) after writing a checkpoint (or before
// training began). Output that cannot be written (a full disk, a closed pipe) makes a status of 0
// 1; another status stays.
int run(const std::vector<std::string>& args, std::FILE* out = stdout, std::FILE* err = stderr);

// Parses and checks `args` as run() does, every flag's range and the combinations of flags,
// but runs no command and touches no file: 0 (they are valid, or --help), 2 (bad arguments,
// the message on `err`). For the argument-parser fuzz target (fuzz/cli_args_fuzz.cpp).
int parse_only(const std::vector<std::string>& args, std::FILE* out, std::FILE* err);

}  // namespace tg::cli
